"""The project's own tests of the changed code go before both versions of the regression check: the same
text for both, the tests the change adds first, then those sharing the most with the changed lines."""

from __future__ import annotations

from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import RegressionSettings, ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.change.project_tests import ProjectTests, around_names
from acode.review.judging.regression import _regions
from acode.review.service import review_change

LIB = '''def parse_size(text):
    """'10k' -> 10240."""
    number, unit = text[:-1], text[-1]
    return int(number) * {"k": 1024, "m": 1024 ** 2}[unit]


class Limits:
    def check(self, text):
        return parse_size(text) < 10
'''
FIXED = LIB.replace("text[-1]\n", "text[-1].lower()\n")
OLD_TEST = "from pkg.sizes import parse_size\n\n\ndef test_k():\n    assert parse_size('1k') == 1024\n"
NEW_TEST = OLD_TEST + "\n\ndef test_upper_case_unit():\n    assert parse_size('1K') == 1024\n"
UNRELATED = "def test_nothing():\n    assert 'parse' in 'parser'\n"


def _fix(tmp_path):
    before = {"pkg/__init__.py": "", "pkg/sizes.py": LIB, "tests/test_sizes.py": OLD_TEST,
              "tests/test_other.py": UNRELATED}
    return repo_with_branch(tmp_path / "fix", before, {"pkg/sizes.py": FIXED, "tests/test_sizes.py": NEW_TEST},
                            message="Accept upper-case units")


def _revert(tmp_path):
    before = {"pkg/__init__.py": "", "pkg/sizes.py": FIXED, "tests/test_sizes.py": NEW_TEST,
              "tests/test_other.py": UNRELATED}
    return repo_with_branch(tmp_path / "revert", before, {"pkg/sizes.py": LIB}, message="Update sizes.py")


def test_names_around_changed_lines_innermost_first():
    assert around_names(LIB, {9}) == ["check", "Limits"]
    assert around_names(LIB, {3}) == ["parse_size"]
    assert around_names("def broken(:\n", {1}) == []


def test_the_tests_the_change_adds_come_first_and_unrelated_tests_never(tmp_path):
    tests = ProjectTests(branch_context(_fix(tmp_path)))
    text = tests.for_region(["parse_size"], "    number, unit = text[:-1], text[-1].lower()")
    assert text.index("def test_upper_case_unit") < text.index("def test_k")
    assert "# from tests/test_sizes.py" in text and "test_nothing" not in text
    assert tests.for_region(["run"], "x") == ""  # a short name matches too much to pick a test


def test_both_versions_read_the_same_tests_in_either_direction(tmp_path):
    for repo in (_fix(tmp_path), _revert(tmp_path)):
        regions, _, _ = _regions(branch_context(repo), RegressionSettings(tests=True), None)
        assert len(regions) == 1
        assert "The project's tests of the code below" in regions[0].prefix
        assert "parse_size('1K') == 1024" in regions[0].prefix
        assert "parse_size('1K')" not in regions[0].old_text + regions[0].new_text
    regions, _, _ = _regions(branch_context(_revert(tmp_path / "off")), RegressionSettings(), None)
    assert "The project's tests" not in regions[0].prefix  # off by default


def test_the_contrast_reads_each_version_after_the_tests(tmp_path):
    """A scorer that finds `.lower()` likely only once it has read a test with an upper-case unit: the
    revert that drops it is a regression, and the model saw the test to know it."""
    def scorer(prefix: str, line: str) -> float:
        return (-0.5 if "'1K'" in prefix else -3.0) if ".lower()" in line else -1.0

    model = ScriptedModel([], scorer=scorer)
    settings = ReviewerSettings(strategy="checks_only", regression=RegressionSettings(tests=True))
    result = review_change(branch_context(_revert(tmp_path)), model, settings)
    found = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert found and found[0].status == "confirmed"  # flagged (medium on its own: a reason to look)
    off = ReviewerSettings(strategy="checks_only")
    unread = review_change(branch_context(_revert(tmp_path / "off")), ScriptedModel([], scorer=scorer), off)
    assert not [f for f in unread.all_findings() if f.rule == "review/regression" and f.counts]
