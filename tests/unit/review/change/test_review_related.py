"""The project around a change: changed functions, their callers outside the change, the tests that
name them (run instead of the whole suite with --run-tests)."""

from __future__ import annotations

from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.change.surroundings import changed_functions, related_test_command, surroundings_of
from acode.review.service import review_change

LIB = '''def parse_size(text):
    """'10k' -> 10240."""
    number, unit = text[:-1], text[-1]
    return int(number) * {"k": 1024, "m": 1024 ** 2}[unit]


def other(x):
    return x
'''
FIXED = LIB.replace("number, unit = text[:-1], text[-1]", "number, unit = text[:-1], text[-1].lower()")
USER = "from pkg.sizes import parse_size\n\n\ndef limit(config):\n    return parse_size(config['limit'])\n"
TEST = "from pkg.sizes import parse_size\n\n\ndef test_k():\n    assert parse_size('1k') == 1024\n"
UNRELATED_TEST = "def test_nothing():\n    assert True\n"


def _repo(tmp_path):
    files = {"pkg/__init__.py": "", "pkg/sizes.py": LIB, "pkg/app.py": USER, "tests/test_sizes.py": TEST,
             "tests/test_other.py": UNRELATED_TEST}
    return repo_with_branch(tmp_path / "r", files, {"pkg/sizes.py": FIXED}, message="Accept upper-case units")


def test_changed_functions_are_the_innermost_around_changed_lines():
    assert changed_functions("m.py", FIXED, {3}) == ["parse_size"]
    assert changed_functions("m.py", FIXED, {8}) == ["other"]
    assert changed_functions("m.py", "def broken(:\n", {1}) == []


def test_callers_outside_the_change_and_the_tests_that_name_the_function(tmp_path):
    around = surroundings_of(branch_context(_repo(tmp_path)))
    assert around.functions == {"pkg/sizes.py": ["parse_size"]}
    assert around.callers == ["pkg/app.py:5:    return parse_size(config['limit'])"]
    assert around.tests == ["tests/test_sizes.py"]
    assert related_test_command(around.tests) == "python -m pytest -q tests/test_sizes.py"
    assert related_test_command([]) == "python -m pytest -q"  # nothing related found: the whole suite
    own = "python -m pytest -q -m 'not slow' {tests}"
    assert related_test_command(around.tests, own) == "python -m pytest -q -m 'not slow' tests/test_sizes.py"
    assert related_test_command(["tests/it's.py"], own) == "python -m pytest -q -m 'not slow' 'tests/it'\"'\"'s.py'"
    assert related_test_command(around.tests, "make check") == "make check"  # no {tests}: as written


def test_the_reviewer_reads_the_callers_and_run_tests_runs_the_related_tests(tmp_path):
    repo = _repo(tmp_path)
    model = ScriptedModel([{"json": {"findings": [{"dimension": "code_quality", "line_number": 3, "problem": "p",
                                                   "severity": "low", "suggestion": "s"}]}}, "no"],
                          scorer=lambda prefix, line: -1.0)
    result = review_change(branch_context(repo), model, ReviewerSettings(strategy="single_call"), run_tests=True)
    prompt = model.calls[0]["messages"][-1].content
    assert "Where the project uses the changed functions" in prompt and "pkg/app.py:5:" in prompt
    # the related file first; it passes on both sides, so the whole suite runs too
    assert result.tests["ran"] == ["python -m pytest -q tests/test_sizes.py", "python -m pytest -q"]
