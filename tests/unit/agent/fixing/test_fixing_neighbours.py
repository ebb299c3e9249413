"""A candidate that makes the named tests pass and breaks another test of their files is no fix
(acode.agent.fixing.neighbours): the command's parsing, and the fixer with the scripted model on a real
pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_project import fixing_repo, reply, send, traced

from acode.agent.fixing.neighbours import NeighbourCheck, files_command, suite_command
from acode.agent.fixing.outcome import TestOutcome as Outcome
from acode.agent.fixing.outcome import failing_ids
from acode.llm.scripted import ScriptedModel

MODULE = '''def scale(values, factor):
    """Each value times factor."""
    return [v * factor + 1 for v in values]


def total(values):
    return sum(scale(values, 1)) - len(values)
'''
FIXED = MODULE.replace("v * factor + 1", "v * factor").replace(" - len(values)", "")
# makes the named test pass and breaks test_total, which passed before
BREAKING = MODULE.replace("v * factor + 1", "v * factor")
TESTS = ("from tool.calc import scale, total\n\n\ndef test_scale():\n"
         "    assert scale([1, 2], 3) == [3, 6]\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n")
NODE = "tests/test_calc.py::test_scale"
REQUEST = (f"These tests fail: {NODE}. Fix the bug in the code (not the tests) so they pass (run them with: "
           f"python -m pytest -q {NODE})")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    return fixing_repo(tmp_path, monkeypatch, {"src/tool/calc.py": MODULE, "tests/test_calc.py": TESTS})


def test_the_files_command_runs_the_named_tests_files_whole():
    ids = ["tests/test_a.py::test_x", "tests/test_a.py::TestC::test_y[a b]", "tests/test_b.py::test_z"]
    command = "/env/bin/python -m pytest -q tests/test_a.py::test_x 'tests/test_a.py::TestC::test_y[a b]' " \
              "tests/test_b.py::test_z -k 'x or y'"
    assert files_command(command, ids) == "/env/bin/python -m pytest -q tests/test_a.py tests/test_b.py"
    assert files_command("python -m pytest -q -kfast tests/test_a.py::test_x", ids[:1]) == \
        "python -m pytest -q tests/test_a.py"
    # both runs must reach every test of the files: no stopping at the first failure
    assert files_command("pytest -x --maxfail=2 -q tests/test_a.py::test_x", ids[:1]) == \
        "pytest -q tests/test_a.py"
    assert files_command("pytest --maxfail 1 tests/test_a.py::test_x", ids[:1]) == "pytest tests/test_a.py"
    assert files_command("python -m pytest -q", []) is None  # already the whole suite
    assert files_command("python -m pytest -q tests/test_a.py", ["tests/test_a.py"]) is None  # a file
    assert files_command("make test", ids) is None
    assert files_command("python -m pytest -q 'unclosed", ids) is None
    # the whole suite: nothing named, pytest finds the tests
    # (a module that does not collect is one more failure, before and after: the rest still runs)
    suite = " --continue-on-collection-errors"
    assert suite_command(command, ids) == "/env/bin/python -m pytest -q" + suite
    named = ["tests/test_a.py::test_x", "tests/test_b.py"]
    assert suite_command("pytest -x tests/test_a.py::test_x tests/test_b.py", named) == "pytest" + suite
    assert suite_command("python -m pytest -q", []) is None


def test_only_what_failed_after_and_not_before_is_broken():
    before = Outcome("FAILED tests/t.py::test_named - assert 1 == 2\nFAILED tests/t.py::test_env\n", 1)
    check = NeighbourCheck("python -m pytest -q tests/t.py", before, 20.0)
    after = Outcome("FAILED tests/t.py::test_env\nFAILED tests/t.py::test_other - KeyError\n", 1)
    assert failing_ids(after.output) == ["tests/t.py::test_env", "tests/t.py::test_other"]
    assert check.broken(after) == ["tests/t.py::test_other"]  # test_env failed before: not the edit's
    assert check.broken(Outcome("1 passed", 0)) == []
    # a parametrized id holding a space is read whole (pytest prints it so)
    spaced = Outcome("FAILED tests/t.py::test_p[a b] - assert 0\n", 1)
    assert check.broken(spaced) == ["tests/t.py::test_p[a b]"]
    # failures the record saw before and the cut output did not list are not the edit's
    recorded = NeighbourCheck(check.command, before, 20.0, frozenset({"tests/t.py::test_other"}))
    assert recorded.broken(after) == []
    # a run that ends without failing tests to name (pytest's collection summary, exit code 2)
    assert check.broken(Outcome("!!! Interrupted: 1 error during collection !!!", 2)) == [
        "the run itself (exit code 2, before: 1)"]


@pytest.mark.slow
def test_a_candidate_that_breaks_another_test_of_the_file_is_not_the_answer(project):
    # the one call and the fixer's framing write the breaking version; the failure fed back gets the fix
    model = ScriptedModel([reply("src/tool/calc.py", BREAKING)] * 2 + [reply("src/tool/calc.py", FIXED)])
    result = send(project, model, REQUEST, line_edit_calls=0, token_budget=0, suspect_asks=0)
    assert result.ok and "passes now" in result.answer, result.message
    assert (project / "src/tool/calc.py").read_text() == FIXED
    assert "`python -m pytest -q tests/test_calc.py` fails on nothing that passed before" in result.answer
    # the third call was told which test the first candidate broke
    feedback = model.calls[2]["messages"][-1].content
    assert "other tests of the same files, which passed before, fail now" in feedback
    assert "test_total" in feedback
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    files_run = "python -m pytest -q tests/test_calc.py"
    # the named tests; their files before any edit; each candidate (the repeat is not run): the named
    # tests, then their files
    assert traced(files_run).fullmatch(runs[1])  # recording what each test executes (spectrum.py)
    assert [runs[0], *runs[2:]] == [f"python -m pytest -q {NODE}", f"python -m pytest -q {NODE}", files_run,
                                    f"python -m pytest -q {NODE}", files_run]


def test_when_only_a_breaking_candidate_passes_the_run_fails_and_says_so(project):
    model = ScriptedModel([reply("src/tool/calc.py", BREAKING)])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1, suspect_asks=0)
    assert not result.ok and result.stop_reason == "tests_failing"
    assert "Candidate 1 made it pass but broke 1 other test(s) that passed before " \
           "(tests/test_calc.py::test_total)" in result.message
    assert (project / "src/tool/calc.py").read_text() == MODULE


def test_check_neighbours_off_takes_the_first_candidate_that_passes_the_named_tests(project):
    model = ScriptedModel([reply("src/tool/calc.py", BREAKING)])
    result = send(project, model, REQUEST, line_edit_calls=0, check_neighbours=False)
    assert result.ok and (project / "src/tool/calc.py").read_text() == BREAKING


GUARDED = '''def scale(values, factor):
    """Each value times factor; a negative factor is an error."""
    check(factor)
    result = [v * factor for v in values]
    return result


def check(factor):
    if factor < 0 or factor == 3:
        raise ValueError(f"a negative factor: {factor}")
'''
CHECK_TESTS = ("import pytest\nfrom tool.calc import scale\n\n\ndef test_negative():\n"
               "    with pytest.raises(ValueError):\n        scale([1], -1)\n")


@pytest.mark.slow
def test_an_edit_without_a_model_must_not_break_a_test_of_another_file(tmp_path, monkeypatch):
    """Deleting `check(factor)` passes the named test and its file; a test of another file, which the
    named tests' files do not hold, fails with it (pyflakes 3.0.0->3.0.1: a deleted call passed its file
    and broke two tests of two other files). The whole suite runs for it, once before, once after."""
    files = {"src/tool/calc.py": GUARDED, "tests/test_calc.py": TESTS.replace(", total", "").split(
        "\n\n\ndef test_total")[0] + "\n", "tests/test_check.py": CHECK_TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/calc.py", GUARDED)] + ["no reply"] * 8)
    result = send(project, model, REQUEST, line_edit_calls=0, suspect_asks=0, max_model_calls=1,
                  deletions=12)
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    assert not result.ok and result.stop_reason == "tests_failing", result.answer
    assert "broke 1 other test(s) that passed before (tests/test_check.py::test_negative)" in result.message
    assert (project / "src/tool/calc.py").read_text() == GUARDED
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    # the suite on the original files, then with the edit
    assert runs.count("python -m pytest -q --continue-on-collection-errors") == 2


LABEL = '''

def label(n):
    """A label.

    >>> label(2)
    'two'
    """
    return str(n)
'''


@pytest.mark.slow
def test_an_example_that_failed_before_in_a_definition_not_changed_is_not_the_candidates(project):
    """pyparsing's core.py: ten examples fail on the release itself; the right candidate was refused."""
    (project / "src/tool/calc.py").write_text(MODULE + LABEL)
    model = ScriptedModel([reply("src/tool/calc.py", FIXED + LABEL)])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1, suspect_asks=0)
    assert result.ok and "passes now" in result.answer and "examples" not in result.answer, result.answer
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    assert sum("--doctest-modules" in r for r in runs) == 2  # the candidate's, then the original's


def test_an_example_of_a_changed_definition_counts_even_if_it_failed_before():
    from acode.agent.fixing.examples import changed_definitions, new_failures

    before = "FAILED src/tool/calc.py::tool.calc.label\n"
    after = "FAILED src/tool/calc.py::tool.calc.label\n"
    old = MODULE + LABEL
    assert changed_definitions(old, FIXED + LABEL) == {"scale", "total"}
    assert not new_failures(after, before, {"src/tool/calc.py": old}, {"src/tool/calc.py": FIXED + LABEL})
    relabelled = FIXED + LABEL.replace("return str(n)", "return str(n) + ''")
    assert changed_definitions(old, relabelled) == {"scale", "total", "label"}
    assert new_failures(after, before, {"src/tool/calc.py": old}, {"src/tool/calc.py": relabelled})
    # a failure that is new counts, and one the run cannot name (the standard library's doctest) too
    assert new_failures(after + "FAILED src/tool/calc.py::tool.calc.scale\n", before,
                        {"src/tool/calc.py": old}, {"src/tool/calc.py": FIXED + LABEL})
    assert new_failures("1 items had failures", "1 items had failures", {}, {})
    assert changed_definitions("class C:\n    def m(self):\n        return 1\n",
                               "class C:\n    def m(self):\n        return 2\n") == {"C.m"}
