"""Ruff's fixes that change behaviour are candidates before any model call (acode.agent.fixing.static_fixes):
the real ruff on a real pytest project, the scripted model for the calls that follow."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_project import fixing_repo, reply, send

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.static_fixes import static_fixes
from acode.llm.scripted import ScriptedModel

MODULE = '''def greet(name):
    return "Hello, {name}!"


def double(x):
    return x + x + 1


def collect(item, found=[]):
    found.append(item)
    return found
'''
TESTS = ("from tool.words import double, greet\n\n\ndef test_greet():\n"
         "    assert greet('Ada') == 'Hello, Ada!'\n\n\ndef test_double():\n    assert double(2) == 4\n")


def request(test: str) -> str:
    node = f"tests/test_words.py::{test}"
    return (f"These tests fail: {node}. Fix the bug in the code (not the tests) so they pass (run them with: "
            f"python -m pytest -q {node})")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    return fixing_repo(tmp_path, monkeypatch, {"src/tool/words.py": MODULE, "tests/test_words.py": TESTS})


def test_each_finding_is_one_candidate_and_only_rules_that_change_behaviour():
    source = MODULE + '\n\ndef same(a):\n    return a is "x"\n\n\ndef unused():\n    import os\n'
    fixes = static_fixes(FileView("words.py", source))
    assert [(f.code, f.line) for f in fixes] == [("RUF027", 2), ("B006", 9), ("F632", 15)]
    assert 'return f"Hello, {name}!"' in fixes[0].text and "found=[]" in fixes[0].text  # one fix each
    assert "def collect(item, found=None):\n    if found is None:\n        found = []" in fixes[1].text
    assert 'return a == "x"' in fixes[2].text
    assert all("import os" in f.text for f in fixes)  # F401 (an unused import) is style, not a candidate
    assert static_fixes(FileView("words.txt", source)) == []


def test_a_bare_super_inside_a_comprehension_is_written_with_its_class():
    # a TypeError before Python 3.12 (flask 3.0.1->3.0.2); in the method itself it is fine
    source = ("class Base:\n    def convert(self, x):\n        return x\n\n\nclass Paths(Base):\n"
              "    def convert(self, value):\n        first = super().convert(value)\n"
              "        return [first] + [super().convert(v) for v in value.split(':')]\n\n"
              "    def later(me):\n        return lambda v: super().convert(v)\n")
    fixes = static_fixes(FileView("paths.py", source))
    assert [(f.code, f.line) for f in fixes] == [("super() in a comprehension", 9),
                                                 ("super() in a comprehension", 12)]
    assert "[super(Paths, self).convert(v) for v in" in fixes[0].text
    assert "first = super().convert(value)" in fixes[0].text  # outside a comprehension: as it was
    assert "lambda v: super(Paths, me).convert(v)" in fixes[1].text
    assert fixes[0].describe("paths.py") == "super() in a comprehension at paths.py:9, no model call"
    namespace: dict = {}
    exec(fixes[0].text, namespace)  # noqa: S102 - the test's own source, to show the fix runs
    assert namespace["Paths"]().convert("a:b") == ["a:b", "a", "b"]


def test_a_finding_outside_the_excerpt_is_not_tried():
    shown = 'def greet(name):\n    return "Hello, {name}!"\n'
    assert [f.code for f in static_fixes(FileView("words.py", MODULE, shown_part=shown))] == ["RUF027"]
    elsewhere = "def double(x):\n    return x + x + 1\n"
    assert static_fixes(FileView("words.py", MODULE, shown_part=elsewhere)) == []


@pytest.mark.slow
def test_the_missing_f_is_fixed_without_a_model_call(project):
    model = ScriptedModel([])
    result = send(project, model, request("test_greet"))
    assert result.ok, result.message
    assert model.calls == []
    assert "ruff's fix for RUF027 at src/tool/words.py:2, no model call" in result.answer
    assert (project / "src/tool/words.py").read_text() == MODULE.replace('"Hello', 'f"Hello')


@pytest.mark.slow
def test_findings_that_are_not_the_bug_cost_a_test_run_then_the_model_fixes_it(project):
    fixed = MODULE.replace("x + x + 1", "x + x")
    model = ScriptedModel([reply("src/tool/words.py", fixed)])
    result = send(project, model, request("test_double"))
    assert result.ok and "passes now" in result.answer, result.message
    assert len(model.calls) == 1
    assert (project / "src/tool/words.py").read_text() == fixed  # neither static fix was kept
    written = [s.arguments["content"] for s in result.tool_steps() if s.name == "write_file"]
    # the two static fixes (the f prefix, the mutable default), each on the original text, then the model's
    assert written == [MODULE.replace('"Hello', 'f"Hello'), written[1], fixed]
    assert "found=None" in written[1]


@pytest.mark.slow
def test_static_fixes_off_asks_the_model_first(project):
    fixed = MODULE.replace('"Hello', 'f"Hello')
    model = ScriptedModel([reply("src/tool/words.py", fixed)])
    result = send(project, model, request("test_greet"), static_fixes=False)
    assert result.ok and len(model.calls) == 1, result.message
    assert (project / "src/tool/words.py").read_text() == fixed


def test_the_suspect_functions_of_a_file_the_prompt_does_not_show_get_the_static_fixes(tmp_path, monkeypatch):
    """The spectrum project with its bug a missing `f` in `stats.py`, both modules past max_file_lines: the
    prompt shows no file, only the test spectrum's suspect functions. Their lines get ruff's fixes before
    any model call; the same finding in a function no failing test ran is left alone."""
    from tests.helpers.spectrum_project import REPORT, TESTS

    stats = ('def mean(values):\n    return sum(values) / len(values)\n\n\n'
             'def unused_label(low):\n    return "from {low}"\n\n\n'
             'def spread(values):\n    span = max(values) - min(values)\n    return int("{span}")\n')
    repo = fixing_repo(tmp_path, monkeypatch, {"src/tool/stats.py": stats, "src/tool/report.py": REPORT,
                                               "tests/test_report.py": TESTS})
    node = "tests/test_report.py::test_range"
    model = ScriptedModel([])
    result = send(repo, model, f"These tests fail: {node}. Fix the bug in the code (not the tests) so they "
                               f"pass (run them with: python -m pytest -q {node})", max_file_lines=3)
    assert result.ok, result.message
    assert model.calls == []
    assert "ruff's fix for RUF027 at src/tool/stats.py:11, no model call" in result.answer
    assert (repo / "src/tool/stats.py").read_text() == stats.replace('int("{span}")', 'int(f"{span}")')
    written = [s.arguments for s in result.tool_steps() if s.name == "write_file"]
    assert [w["file_path"] for w in written] == ["src/tool/stats.py"]
    assert 'return "from {low}"' in written[0]["content"]  # not a suspect: never edited
