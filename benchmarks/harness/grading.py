"""Whether a candidate fix resolves its task, decided here for every fix benchmark, in the terms of
SWE-bench's harness (swebench/harness/grading.py):

- FAIL_TO_PASS: the tests that fail (or error) before the fix and pass after it; a candidate must make them
  pass;
- PASS_TO_PASS: the tests that pass with the fix and must keep passing with the candidate.

A task is resolved when every test of both lists passes. A test passes only when pytest says PASSED: an
XFAIL is not a pass here (SWE-bench counts it as one), and a test that did not run is not one either.

The one-file tasks (``tasks/fix_tasks.py``) have one hidden check as their FAIL_TO_PASS and no PASS_TO_PASS;
the real-project tasks (``tasks/fix_project_tasks.py``) have the fix's flipped tests and the other tests of
their files, and ``fix/fix_project.py`` adds the whole suite as a PASS_TO_PASS of its own (``broken_tests``).
``fix/run_success.py`` has no hidden tests (its task adds a function and its test): it is not graded here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PASSED, FAILED, ERROR = "PASSED", "FAILED", "ERROR"
MISSING = "MISSING"  # the test did not run, or pytest did not report it


@dataclass(frozen=True)
class Grade:
    resolved: bool
    fail_to_pass: dict[str, str]  # test -> its outcome on the candidate
    pass_to_pass: dict[str, str]


def grade(outcomes: Mapping[str, str], fail_to_pass: Iterable[str],
          pass_to_pass: Iterable[str] = ()) -> Grade:
    """The candidate's grade from its test outcomes ({test: PASSED/FAILED/ERROR/...}); a test in both lists
    counts once, as FAIL_TO_PASS."""
    must_flip = {test: outcomes.get(test, MISSING) for test in fail_to_pass}
    must_keep = {test: outcomes.get(test, MISSING) for test in pass_to_pass if test not in must_flip}
    resolved = all(outcome == PASSED for outcome in (*must_flip.values(), *must_keep.values()))
    return Grade(resolved, must_flip, must_keep)


def fail_to_pass_tests(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """FAIL_TO_PASS of a fix: the tests that fail (or error) before it and pass after it."""
    return sorted(test for test, outcome in after.items()
                  if outcome == PASSED and before.get(test) in (FAILED, ERROR))


def broken_tests(before: Mapping[str, str], after: Mapping[str, str]) -> list[str]:
    """The whole suite as PASS_TO_PASS: the tests that passed before a candidate and fail or error after it,
    or whose file no longer imports. A test only missing after is not counted: marshmallow parametrizes a
    test with the current time, so its ids differ from run to run."""
    unimportable = {test for test, outcome in after.items() if outcome == ERROR and "::" not in test}
    return sorted(test for test, outcome in before.items() if outcome == PASSED and (
        after.get(test) in (FAILED, ERROR) or test.split("::")[0] in unimportable))
