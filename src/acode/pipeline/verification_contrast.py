"""A failed verification, compared with the run's start.

A check that fails at the end of the executor's retries says little on its own: the test may have failed
before the run too. Each such check runs again on the change and on the run's start commit (with the
change's test files over it), by the same machinery `acode review` runs a project's tests on both sides
with (``acode.review.evidence.test_runs``). A test that passed at the start and fails with the change is a
failure the change brings: it is evidence for the review (``tests/regressed``, critical) and the run is not
approved on it (``gate``). A test failing on both sides is reported as failing before and after and does
not block. A check that could not run (timed out, could not start) is not compared; the summary says so.

The checks run as the verifier ran them, each side within ``pipeline.timeouts.verifier``: in the sandbox
(the review's, on the extracted trees) unless ``sandbox: off`` or bubblewrap is missing, else as the user.
"""

from __future__ import annotations

import shlex

from acode.pipeline.models import CheckComparison, CheckResult, ReviewIssue, ReviewOutcome, Verification
from acode.pipeline.verifier import check_argv, check_environment
from acode.review.evidence.gathering import findings_of_tests
from acode.review.evidence.test_runs import SuiteContrast, SuitePlan, added_tests, contrast
from acode.review.models import Finding, ReviewContext
from acode.sandbox import Sandbox

_WHOLE_COMMAND = "the test command"  # evidence.test_runs' name for a command compared by its exit code
BLOCKING = ("critical", "high")


def compare_with_start(context: ReviewContext, verification: Verification, timeout: float,
                       sandbox: Sandbox | None = None) -> list[SuiteContrast]:
    """Each failed check of ``verification`` that ran to its end, run on both sides of the change
    (``context.base_sha`` is the start commit) in ``sandbox`` (None: as the user); the outcome is also
    kept on the check (``compared``)."""
    out = []
    for check in verification.checks:
        if check.passed or check.skipped or check.could_not_run:
            continue
        plan = SuitePlan([_shell_command(check)], sandbox=sandbox, env=check_environment())
        result = _added_tests_are_new(_named(contrast(context, plan, timeout), check.command), context)
        before = result.base.outcomes if result.base else None  # None: compared by exit code
        check.compared = CheckComparison(
            regressed=result.regressed, new_failing=result.new_failing, failing_before=result.failing_before,
            at_start={t: before.get(t, "not run") for t in result.regressed
                      if before is not None and before.get(t) != "passed"},
            exit_code=result.head.exit_code, base_exit_code=result.base.exit_code if result.base else None,
            note=result.note)
        out.append(result)
    return out


def _shell_command(check: CheckResult) -> str:
    """The check as one shell command line: detected and step commands with acode's interpreter for a
    leading ``python``, as the verifier ran them; configured ones as written."""
    return check.command if check.shell else shlex.join(check_argv(check.command))


def _named(result: SuiteContrast, command: str) -> SuiteContrast:
    """A command compared by its exit code (no per-test report) is named by the command itself."""
    def name(items: list[str]) -> list[str]:
        return [f"`{command}`" if item == _WHOLE_COMMAND else item for item in items]

    result.regressed, result.new_failing = name(result.regressed), name(result.new_failing)
    result.failing_before = name(result.failing_before)
    return result


def _added_tests_are_new(result: SuiteContrast, context: ReviewContext) -> SuiteContrast:
    """A failing test in a file the change adds neither failed nor passed before the run: it did not exist
    (on the start commit with the change's test files over it, it may fail to import, or fail, too). The
    review counts such tests as new only when some test passes, in case the environment runs no test at
    all; here the verifier's own environment ran them."""
    added = added_tests(context)
    if not added:
        return result
    new = [t for t in result.regressed + result.failing_before if t.split("::")[0].startswith(added)]
    result.new_failing += [t for t in new if t not in result.new_failing]
    result.regressed = [t for t in result.regressed if t not in new]
    result.failing_before = [t for t in result.failing_before if t not in new]
    return result


def blocking_findings(ran: list[SuiteContrast]) -> list[Finding]:
    """What the comparison shows the change breaks: a test that passed at the start, a test the change
    adds that fails, a failure that could not be compared with the start."""
    return [f for result in ran for f in findings_of_tests(result) if f.severity in BLOCKING]


def gate(outcome: ReviewOutcome, ran: list[SuiteContrast]) -> ReviewOutcome:
    """A review never approves (nor times out without a verdict) past a check the change breaks: the
    decision is REJECTED on that evidence, whatever the model's part said, and the issue goes back to the
    planner."""
    blocking = blocking_findings(ran)
    if not blocking or outcome.decision == "REJECTED":
        return outcome
    was = outcome.decision
    shown = {i.message for i in outcome.issues}
    issues = [ReviewIssue(dimension=f.dimension, severity=f.severity, message=f.message,
                          suggestion=f.suggestion) for f in blocking if f.message not in shown]
    why = "; ".join(f.message for f in blocking)
    return outcome.model_copy(update={
        "decision": "REJECTED", "issues": issues + outcome.issues,
        "notes": f"the verification shows the change breaks tests: {why} (the review alone: {was}"
                 + (f", {outcome.notes})" if outcome.notes else ")"),
    })
