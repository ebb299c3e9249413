"""`--run-tests` runs the related tests on both sides of the change: what the change breaks counts, what it
makes pass confirms it, what failed before it is not held against it. Real pytest runs in real git
repositories (no model)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context, commit_context, uncommitted_context
from acode.review.evidence.gathering import findings_of_tests, gather_evidence
from acode.review.evidence.test_runs import (
    SuiteContrast,
    SuitePlan,
    SuiteRun,
    _is_pytest,
    _one_side_hangs,
    compare,
)
from acode.review.reporting.report import describe_tests, render_markdown
from acode.review.service import review_change
from acode.sandbox import find_sandbox


def sandboxed(commands: list[str]) -> SuitePlan:
    """The commands as a review runs them: in the sandbox where there is one (as the user elsewhere)."""
    return SuitePlan(commands, find_sandbox()[0])

PYTEST = f"{sys.executable} -m pytest -q tests/test_calc.py"
GOOD = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n"
BAD = GOOD.replace("return a + b", "return a - b")
TEST = ("from calc import add, neg\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
        "def test_neg():\n    assert neg(2) == -2\n")
BROKEN_BEFORE = "def test_environment():\n    assert False, 'fails with or without the change'\n"


def _rules(evidence) -> dict[str, str]:
    return {f.rule: f.severity for f in evidence.findings if f.source in ("tests", "test-command") and f.rule != "tests/not-touched"}


def test_a_change_that_breaks_a_passing_test_is_a_critical_regression(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"src/calc.py": BAD}, message="Simplify add")
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([PYTEST]))
    assert evidence.tests["regressed"] == ["tests.test_calc::test_add"]  # test_neg passes on both sides
    assert evidence.tests["exit_code"] == 1 and evidence.tests["base"]["exit_code"] == 0
    assert _rules(evidence) == {"tests/regressed": "critical"}
    [finding] = [f for f in evidence.findings if f.rule == "tests/regressed"]
    assert "test_add" in finding.message and finding.counts


def test_a_fix_whose_new_test_fails_on_the_base_is_confirmed_and_not_second_guessed(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": BAD},
                            {"src/calc.py": GOOD, "tests/test_calc.py": TEST}, message="Fix add")
    context = branch_context(repo, "main")
    evidence = gather_evidence(context, tests=sandboxed([PYTEST]))
    assert evidence.tests["fixed"] == ["tests.test_calc::test_add"] and not evidence.tests["regressed"]
    assert _rules(evidence) == {"fixed/tests": "info"}

    scored = []
    model = ScriptedModel(["{}"] * 4, scorer=lambda prefix, text: scored.append(text) or -5.0)
    settings = ReviewerSettings(strategy="checks_only", test_command=PYTEST)
    result = review_change(context, model, settings, run_tests=True)
    # the likelihood contrast would find the rewritten line less likely; the executed tests outrank it
    assert scored == [] and result.plan.regions_compared == 0
    assert result.decision.verdict == "APPROVED", result.decision.reasons


def test_tests_failing_on_both_sides_are_noted_not_held_against_the_change(tmp_path):
    before = {"src/calc.py": GOOD, "tests/test_calc.py": TEST + "\n\n" + BROKEN_BEFORE}
    repo = repo_with_branch(tmp_path / "r", before, {"src/calc.py": GOOD + "\n\nZERO = 0\n"})
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([PYTEST]))
    assert evidence.tests["failing_before"] == ["tests.test_calc::test_environment"]
    assert _rules(evidence) == {"tests/failing-before": "info"}


def test_a_test_the_change_adds_that_fails_with_it_counts(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": BAD},
                            {"src/calc.py": BAD + "\n", "tests/test_calc.py": TEST}, message="Test add")
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([PYTEST]))
    assert evidence.tests["new_failing"] == ["tests.test_calc::test_add"] and not evidence.tests["failing_before"]
    assert _rules(evidence) == {"tests/failed": "high"}


def test_the_tests_import_the_tree_under_review_not_an_installed_copy(tmp_path):
    # `calc` is installed nowhere: the tests find it only because each tree's src/ leads PYTHONPATH
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"src/calc.py": GOOD + "\n"})
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([PYTEST]))
    assert evidence.tests["exit_code"] == 0 and evidence.tests["base"]["exit_code"] == 0
    assert "2 passed" in evidence.tests["output_tail"]
    assert not list(repo.glob("*.xml"))  # the checkout is left as it was


def test_the_reviewed_commit_is_tested_even_when_another_branch_is_checked_out(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"src/calc.py": BAD})
    subprocess.run(["git", "switch", "-q", "main"], cwd=repo, check=True)
    context = commit_context(repo, "feature")
    assert context.head_rev and (repo / "src/calc.py").read_text() == GOOD
    evidence = gather_evidence(context, tests=sandboxed([PYTEST]))
    assert evidence.tests["regressed"] == ["tests.test_calc::test_add"]


def test_uncommitted_work_is_tested_in_the_checkout_and_the_checkout_keeps_no_report(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"README": "calc\n"})
    (repo / "src/calc.py").write_text(BAD)
    context = uncommitted_context(repo)
    assert context.head_rev is None
    evidence = gather_evidence(context, tests=sandboxed([PYTEST]))
    assert evidence.tests["regressed"] == ["tests.test_calc::test_add"]
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.split() == ["M", "src/calc.py"]


def test_any_other_command_is_compared_by_its_exit_code(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    context = branch_context(repo, "main")
    broken = gather_evidence(context, tests=sandboxed(["grep -q 'x = 1' a.py"]))
    assert broken.tests["regressed"] == ["the test command"] and _rules(broken) == {"tests/regressed": "critical"}
    fixed = gather_evidence(context, tests=sandboxed(["grep -q 'x = 2' a.py"]))
    assert fixed.tests["fixed"] == ["the test command"]
    both = gather_evidence(context, tests=sandboxed(["echo 'token = \"abcdefgh123\"'; exit 3"]))
    assert both.tests["failing_before"] == ["the test command"] and "abcdefgh123" not in both.tests["output_tail"]
    slow = gather_evidence(context, tests=sandboxed(["sleep 5"]), test_timeout=0.5)
    assert slow.tests["timed_out"] and slow.tests["exit_code"] == 124
    # a run that did not finish is compared with a base given half the limit (issue 47: a hang the change
    # brings counts for the whole suite too); this base does not finish either, so nothing counts
    assert slow.tests["base"]["timed_out"] and "did not finish in 0.5 s" in slow.tests["note"]
    assert _rules(slow) == {"tests/timeout": "info"}


def test_an_error_on_the_base_is_not_evidence_of_a_fix():
    head = SuiteRun("pytest", 0, False, "", {"t::a": "passed", "t::b": "passed"})
    base = SuiteRun("pytest", 2, False, "", {"t": "error"})  # e.g. the test imports a name the change adds
    assert compare(head, base) == ([], [], [])
    crashed = SuiteRun("pytest", 2, False, "", {})
    assert compare(crashed, SuiteRun("pytest", 0, False, "", {"t::a": "passed"}))[0]


def test_without_a_base_a_failing_command_is_a_plain_failure():
    alone = SuiteContrast(head=SuiteRun("make check", 2, False, ""), note="no base revision")
    [finding] = findings_of_tests(alone)
    assert (finding.rule, finding.severity, finding.dimension) == ("tests/failed", "high", "completeness")
    assert "no base revision" in finding.message


def test_when_the_related_tests_show_nothing_the_whole_suite_runs(tmp_path):
    # a change to a helper the related test files never name: only the whole suite reaches the test
    other = "def test_unrelated():\n    assert True\n"
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST,
                                             "tests/test_other.py": other}, {"src/calc.py": BAD})
    related, whole = f"{sys.executable} -m pytest -q tests/test_other.py", f"{sys.executable} -m pytest -q"
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([related, whole]))
    assert evidence.tests["regressed"] == ["tests.test_calc::test_add"]
    assert evidence.tests["command"] == whole and "whole suite" in evidence.tests["note"]
    clean = repo_with_branch(tmp_path / "c", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                             {"src/calc.py": BAD})
    first = gather_evidence(branch_context(clean, "main"), tests=sandboxed([PYTEST, whole]))
    assert first.tests["command"] == PYTEST and first.tests["note"] == ""  # found at once: no second run


def test_the_report_says_what_the_tests_showed_on_each_side(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"src/calc.py": BAD})
    result = review_change(branch_context(repo, "main"), ScriptedModel([], scorer=lambda prefix, text: -1.0),
                           ReviewerSettings(strategy="checks_only", test_command=PYTEST), run_tests=True)
    assert result.decision.verdict == "REJECTED"
    assert any("tests/regressed" not in r and "test_add" in r for r in result.decision.reasons)
    line = describe_tests(result.tests)
    assert line.startswith(f"`{PYTEST}` exit 1 with the change, 0 on the base: 1 broken by the change")
    assert f"Tests: \\`{PYTEST}\\` exit 1" in render_markdown(result)  # literal: test ids come from the change


def test_by_default_a_branchs_tests_run_in_the_sandbox_and_cannot_touch_the_checkout(tmp_path, monkeypatch):
    """`reviewer.run_tests: auto`: a test that writes into the checkout and into the home folder, and reads
    an environment token, runs (its result counts) but changes nothing and sees nothing."""
    if find_sandbox()[0] is None:
        pytest.skip(find_sandbox()[1])
    home = tmp_path / "home"
    home.mkdir()
    repo = tmp_path / "r"
    sneaky = (TEST + "\n\ndef test_escape():\n    import os, pathlib\n"
              f"    for target in ({str(repo / 'PWNED')!r}, {str(home / 'PWNED')!r}):\n"
              "        try:\n            pathlib.Path(target).write_text('x')\n        except OSError:\n"
              "            pass\n    assert os.environ.get('ACODE_TEST_TOKEN') is None\n")
    repo_with_branch(repo, {"src/calc.py": GOOD, "tests/test_calc.py": sneaky}, {"src/calc.py": BAD})
    monkeypatch.setenv("ACODE_TEST_TOKEN", "secret-value")
    result = review_change(branch_context(repo, "main"), ScriptedModel([], scorer=lambda p, t: -1.0),
                           ReviewerSettings(strategy="checks_only", test_command=PYTEST), run_tests="auto")
    assert result.tests["regressed"] == ["tests.test_calc::test_add"]  # test_escape passed on both sides
    assert not (repo / "PWNED").exists() and not (home / "PWNED").exists()
    assert result.decision.verdict == "REJECTED"


@pytest.mark.slow
def test_when_the_tests_of_the_changed_code_agree_the_likelihood_guess_is_not_run(tmp_path):
    """Executed evidence outranks the likelihood: the project's tests that name the changed function pass
    the same on both sides, so the model's preference (a coin on real commits) decides nothing; with
    `when_tests_agree: run` it is compared and, here, rejects."""
    base = GOOD + "\n\ndef mul(a, b):\n    return a * b\n"
    head = base.replace("return a * b", "return a ** b")
    test = TEST.replace("import add, neg", "import add, mul, neg")  # names mul, never checks it
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": base, "tests/test_calc.py": test},
                            {"src/calc.py": head}, message="Change mul")
    command = f"{sys.executable} -m pytest -q {{tests}}"

    def review(**regression):
        model = ScriptedModel([], scorer=lambda prefix, line: -9.0 if "**" in line else -0.5)
        settings = ReviewerSettings(test_command=command, regression=regression)
        return review_change(branch_context(repo, "main"), model, settings, run_tests=True), model

    result, model = review()
    assert result.tests["related"] and result.tests["agree"] and result.tests["passed_both"] == 2
    assert model.scored == [] and result.plan.regions_compared == 0
    assert "same result on both sides (2 pass on both)" in result.plan.regression_note
    assert result.decision.verdict == "APPROVED", result.decision.reasons
    assert "Regression check not run: the project's tests" in render_markdown(result)

    compared, model = review(when_tests_agree="run")
    assert model.scored and compared.plan.regions_compared == 1 and not compared.plan.regression_note
    assert any(f.rule == "review/regression" and f.counts for f in compared.all_findings())


def test_when_the_whole_suite_agrees_and_no_test_names_the_changed_code_the_guess_is_not_run_either(tmp_path):
    """Measured on real commits: where no test names the changed code and the suite agrees, the
    likelihood rejected two real fixes for one revert caught. Inside a tested project it is a coin."""
    util = "def mul(a, b):\n    return a * b\n"
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "src/util.py": util,
                                             "tests/test_calc.py": TEST},
                            {"src/util.py": util.replace("a * b", "a ** b")})
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0 if "**" in line else -0.5)
    result = review_change(branch_context(repo, "main"), model,
                           ReviewerSettings(test_command=f"{sys.executable} -m pytest -q {{tests}}"),
                           run_tests=True)
    assert not result.tests["related"] and result.tests["agree"] and model.scored == []
    assert "(none names the changed code)" in result.plan.regression_note
    assert result.decision.verdict == "APPROVED", result.decision.reasons


def test_when_the_change_breaks_a_passing_test_the_guess_is_not_run_and_the_review_rejects_on_the_test(tmp_path):
    """A broken test already rejects the change; comparing the edits' likelihood then only spends time (a
    held-back real commit ran out of it that way)."""
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST},
                            {"src/calc.py": BAD}, message="Simplify add")
    model = ScriptedModel([], scorer=lambda prefix, line: -0.5)
    result = review_change(branch_context(repo, "main"), model,
                           ReviewerSettings(test_command=f"{sys.executable} -m pytest -q {{tests}}"),
                           run_tests=True)
    assert result.tests["regressed"] == ["tests.test_calc::test_add"]
    assert model.scored == [] and result.plan.regions_compared == 0
    assert "already show the change breaks them" in result.plan.regression_note
    assert result.decision.verdict == "REJECTED" and result.status == "complete"
    assert any("test_add" in reason for reason in result.decision.reasons), result.decision.reasons


def test_when_the_tests_run_out_of_time_the_guess_is_not_run_either(tmp_path):
    """A suite too slow for the limit compares nothing, but the project is tested all the same: the guess
    stays out (it rejected real fixes of acode whose whole suite outlasted the limit on a slow machine)."""
    slow = TEST + "\n\ndef test_slow():\n    import time\n    time.sleep(60)\n"
    util = "def mul(a, b):\n    return a * b\n"
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "src/util.py": util, "tests/test_calc.py": slow},
                            {"src/util.py": util.replace("a * b", "a ** b")})
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0 if "**" in line else -0.5)
    settings = ReviewerSettings(test_command=f"{sys.executable} -m pytest -q {{tests}}", test_timeout_seconds=3)
    result = review_change(branch_context(repo, "main"), model, settings, run_tests=True)
    assert result.tests["timed_out"] and model.scored == []
    assert "did not finish within 3 s" in result.plan.regression_note
    assert result.decision.verdict == "APPROVED", result.decision.reasons


def test_tests_agree_only_when_both_sides_finished_with_the_same_outcomes():
    def run(outcomes, exit_code=0, timed_out=False):
        return SuiteRun("pytest", exit_code, timed_out, "", outcomes)

    passing = {"t::a": "passed", "t::b": "failed"}
    assert SuiteContrast(head=run(passing), base=run(passing), passed_both=1).agree()
    assert not SuiteContrast(head=run(passing), base=None).agree()  # nothing to compare with
    assert not SuiteContrast(head=run(passing), base=run(passing, timed_out=True), passed_both=1).agree()
    assert not SuiteContrast(head=run(passing), base=run(passing), passed_both=0).agree()  # none ran
    assert not SuiteContrast(head=run(passing), base=run(passing), passed_both=1, regressed=["t::a"]).agree()
    assert SuiteContrast(head=run(None), base=run(None)).agree()  # by exit code: both passed
    assert not SuiteContrast(head=run(None, 1), base=run(None, 1)).agree()


HANGS = GOOD.replace("return -a", "while True:\n        pass")
# the side that finishes must finish within it on a loaded 2-core machine too (8 s was not enough at load 7)
HANG_LIMIT = 20


@pytest.mark.slow
def test_tests_that_no_longer_finish_are_a_regression_and_tests_that_now_finish_confirm_a_fix(tmp_path):
    # the related tests run on both sides even when the change's run hangs: the hang is the difference
    files = {"src/calc.py": GOOD, "tests/test_calc.py": TEST}
    plan = SuitePlan([PYTEST], find_sandbox()[0], related=True)
    hang = gather_evidence(branch_context(repo_with_branch(tmp_path / "hang", files, {"src/calc.py": HANGS}),
                                          "main"), tests=plan, test_timeout=HANG_LIMIT)
    assert hang.tests["timed_out"] and not hang.tests["base"]["timed_out"]
    assert hang.tests["regressed"][0].startswith(PYTEST) and f"ran out of time ({HANG_LIMIT} s) with the change" in (
        hang.tests["regressed"][0])
    assert _rules(hang)["tests/regressed"] == "critical"

    fixed = gather_evidence(branch_context(repo_with_branch(
        tmp_path / "fix", {**files, "src/calc.py": HANGS}, {"src/calc.py": GOOD}), "main"), tests=plan,
        test_timeout=HANG_LIMIT)
    assert fixed.tests["base"]["timed_out"] and not fixed.tests["timed_out"]
    assert f"ran out of time ({HANG_LIMIT} s) on the base" in fixed.tests["fixed"][0]
    assert _rules(fixed) == {"fixed/tests": "info"}


def test_a_side_that_finishes_only_near_the_limit_is_not_read_as_a_hang_removed():
    def run(seconds, timed_out=False):
        return SuiteRun("pytest", 124 if timed_out else 0, timed_out, "", None, seconds=seconds)

    assert _one_side_hangs(run(9.0), run(10.0, timed_out=True), timeout=10) is None  # 9 s of 10: noise
    assert _one_side_hangs(run(2.0), run(10.0, timed_out=True), timeout=10).fixed
    assert _one_side_hangs(run(10.0, timed_out=True), run(2.0), timeout=10).regressed
    assert _one_side_hangs(run(10.0, timed_out=True), run(10.0, timed_out=True), timeout=10) is None


def test_when_both_sides_hang_the_base_gets_half_the_limit_and_nothing_counts(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    plan = SuitePlan(["sleep 30"], find_sandbox()[0], related=True)
    evidence = gather_evidence(branch_context(repo, "main"), tests=plan, test_timeout=2)
    assert evidence.tests["timed_out"] and evidence.tests["base"]["timed_out"]
    assert evidence.tests["base"]["seconds"] < 2  # a base that slow could not tell a hang anyway
    assert "nor in 1 s on the base" in evidence.tests["note"] and _rules(evidence) == {"tests/timeout": "info"}
    assert evidence.tests["related"]  # the record says which tests hung: the related ones


def test_a_test_that_reads_input_gets_end_of_file_not_the_users_terminal(tmp_path, idle_stdin):
    """The tests used to inherit acode's stdin: in a terminal, a test (or the code under review) that reads
    input read the user's keyboard, or waited for it until the time limit."""
    from acode.review.evidence.test_runs import run_tests

    run = run_tests("read line || echo 'end of file'", tmp_path, 10, tmp_path / "r.xml", find_sandbox()[0],
                    tmp_path)
    assert not run.timed_out and "end of file" in run.output_tail


def test_the_junit_report_options_go_only_to_a_command_that_ends_in_pytest():
    """In `pytest -q && ruff check .` the appended report options would reach ruff (which then fails on both
    sides): such a command is compared by its exit code; `cd sub && pytest` still reports per test."""
    assert _is_pytest("python -m pytest -q") and _is_pytest("cd sub && python -m pytest -q {tests}")
    assert not _is_pytest("python -m pytest -q && python -m ruff check .")
    assert not _is_pytest("pytest -q; ruff check .") and not _is_pytest("make test")


def test_a_suite_that_cannot_run_on_either_side_is_said_so_not_a_failing_test_nor_agreement(tmp_path):
    """pytest exits 4 on both sides when a conftest imports a dependency that is missing (as in a fresh clone):
    "tests could not run: <the error line>", not "1 test fails on the base too" and not agreement (issue 31)."""
    conftest = "import a_dependency_that_is_not_installed  # noqa: F401\n"
    repo = repo_with_branch(tmp_path / "r", {"src/calc.py": GOOD, "tests/test_calc.py": TEST,
                                             "tests/conftest.py": conftest},
                            {"src/calc.py": BAD}, message="Simplify add")
    evidence = gather_evidence(branch_context(repo, "main"), tests=sandboxed([PYTEST]))
    assert evidence.tests["exit_code"] == 4 and evidence.tests["base"]["exit_code"] == 4
    assert not evidence.tests["failing_before"] and not evidence.tests["agree"]
    assert "a_dependency_that_is_not_installed" in evidence.tests["could_not_run"]
    assert _rules(evidence) == {"tests/could-not-run": "info"}
    assert "tests could not run: " in describe_tests(evidence.tests)
    assert "fail on the base too" not in describe_tests(evidence.tests)
