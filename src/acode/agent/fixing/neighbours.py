"""The other tests of the named tests' files: a candidate that makes the named tests pass and breaks a test
next to them that passed before is no fix.

A request on a real project names only its failing tests, and only those run while the fixer searches (a
whole suite takes minutes and may fail for reasons the request is not about). Before a candidate is the
answer, the named tests' files run whole, and their failures are compared with the same files' failures
before any edit: a test that failed before (an environment's own problem) does not count against it.

A candidate no model wrote (a one-token edit, a deleted statement, a crash guard) is a guess, and the
named files may not hold the test it breaks: pyflakes 3.0.0->3.0.1's named file passed with a call
deleted, and two tests of two other files failed. Before such a candidate is the answer, the whole suite
(suite_command) runs too, compared the same way with its run on the original files (made once, when
first needed)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from acode.agent.fixing.outcome import TestOutcome, failing_ids

_STOP_EARLY = ("-x", "--exitfirst", "--sw", "--stepwise", "--lf", "--last-failed")


def files_command(test_command: str, tests: list[str]) -> str | None:
    """``test_command`` running the whole files of the node ids it names, or None when it is not a pytest
    command that names a test inside a file. ``-k`` is dropped, and so is stopping at the first failure
    (``-x``, ``--maxfail``): the runs before and after must both reach every test to be compared."""
    return _rewritten(test_command, tests, suite=False)


def suite_command(test_command: str, tests: list[str]) -> str | None:
    """The same, with no test named: the project's whole suite as pytest finds it (its testpaths), past a
    module that does not collect (markdown 3.10.1's suite stops at one, on its release too): that error is
    then one more failure, there before the edit as after it."""
    command = _rewritten(test_command, tests, suite=True)
    return f"{command} --continue-on-collection-errors" if command is not None else None


def _rewritten(test_command: str, tests: list[str], suite: bool) -> str | None:
    try:
        words = shlex.split(test_command)
    except ValueError:
        return None
    named = {t for t in tests if "::" in t}
    if "pytest" not in test_command or not any(w in named for w in words):
        return None
    files = {t.split("::")[0] for t in tests}
    out: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-k", "--maxfail"):  # and the value after it
            skip = True
            continue
        if (word.startswith("-k") and len(word) > 2) or word in _STOP_EARLY or word.startswith("--maxfail"):
            continue
        if suite and (word in named or word in files):
            continue
        word = word.split("::")[0] if word in named else word
        if word not in out or word.startswith("-"):
            out.append(word)
    return shlex.join(out)


@dataclass(frozen=True)
class NeighbourCheck:
    command: str  # the named tests' files, whole
    before: TestOutcome  # their run before any edit
    seconds: float  # a run's limit (5x the run before, never less than a named-tests run's limit)
    # every test that failed before, from the spectrum's record: the printed output may be cut to the
    # tool's budget, which leaves out failures that would then look new
    failed_before: frozenset[str] = frozenset()

    def broken(self, after: TestOutcome) -> list[str]:
        """What fails after an edit and did not before: node ids, or the run itself when it ended another
        way than with failing tests (a collection error, a timeout)."""
        before = set(failing_ids(self.before.output)) | self.failed_before
        ids = sorted(set(failing_ids(after.output)) - before)
        if ids or after.exit_code in (0, 1, self.before.exit_code):
            return ids
        return [f"the run itself (exit code {after.exit_code}, before: {self.before.exit_code})"]
