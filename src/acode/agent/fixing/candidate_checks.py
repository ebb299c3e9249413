"""The test runs that judge a candidate, each an ordinary tool call through the loop's door: the named
tests (``run_tests``), then the wider checks a candidate that passes them must pass too before it is the
answer: the other tests of the named tests' files (neighbours.py), the whole suite for a candidate no
model wrote, and the changed files' docstring examples (examples.py). A wider check's run on the
original files is made the first time a candidate needs it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from acode.agent.fixing.detect import FixPlan
from acode.agent.fixing.examples import examples_command, examples_failed, files_with_examples, new_failures
from acode.agent.fixing.localise.files_run import NEIGHBOURS
from acode.agent.fixing.neighbours import NeighbourCheck, suite_command
from acode.agent.fixing.outcome import TestOutcome, read_outcome, trim_output
from acode.config.agent import FixConfig

if TYPE_CHECKING:
    from acode.agent.loop.solver_door import SolverDoor

SUITE = "run the project's whole test suite"
EXAMPLES = "run the docstring examples"
Write = Callable[[dict[str, str]], None]  # a candidate's files (path -> text) to write


class Refused(Exception):
    """A write or a test run the approval policy, a rule or a hook did not allow."""


def run_tests(door: SolverDoor, command: str, limit: float | None = None,
              description: str = "run the tests") -> tuple[TestOutcome, float] | None:
    """What the test command printed, and its seconds; None when the run was refused."""
    arguments: dict[str, object] = {"command": command, "description": description}
    if limit is not None:
        arguments["timeout_seconds"] = round(limit, 1)
    step = door.tool("run_shell_command", arguments)
    if step.decision != "allowed" or not step.ok:
        return None
    return read_outcome(step.output), step.seconds


class WiderChecks:
    """The wider checks of one fixing session. ``restore`` writes a candidate's files over the original
    files (``{}``: the originals); ``write`` writes a candidate's files back."""

    def __init__(self, door: SolverDoor, settings: FixConfig, plan: FixPlan, test_limit: float,
                 original: dict[str, bytes], *, restore: Write, write: Write):
        self.door, self.settings, self.plan, self.test_limit = door, settings, plan, test_limit
        self.original = original
        self._restore, self._write = restore, write
        self.neighbours: NeighbourCheck | None = None  # the named tests' files, run whole before any edit
        # the whole suite, for a candidate no model wrote: its run on the original files once first needed
        self.suite_command = suite_command(plan.test_command, plan.tests)
        self.suite: NeighbourCheck | None = None
        self.examples_before: dict[str, str | None] = {}  # an examples command -> its output on the originals

    def broken_neighbours(self) -> tuple[list[str], str] | None:
        """The other tests of the named tests' files that the written candidate breaks (and that run's
        output), or None when none did (or there is no such check)."""
        return self._broken_by(self.neighbours, NEIGHBOURS)

    def broken_suite(self, contents: dict[str, str]) -> tuple[list[str], str] | None:
        """The same for the whole suite (see ``_suite``)."""
        return self._broken_by(self._suite(contents), SUITE)

    def _broken_by(self, check: NeighbourCheck | None, description: str) -> tuple[list[str], str] | None:
        if check is None:
            return None
        run = run_tests(self.door, check.command, check.seconds, description)
        if run is None:
            raise Refused("the test command was refused")
        broke = check.broken(run[0])
        return (broke, trim_output(run[0].output)) if broke else None

    def _suite(self, contents: dict[str, str]) -> NeighbourCheck | None:
        """The whole suite's check (neighbours.suite_command), its run on the original files made the first
        time it is needed (the written candidate put back after it); None where the named tests' files
        are not checked either, or that run did not finish with a result to compare with."""
        if self.suite is None and self.suite_command is not None and self.neighbours is not None:
            seconds = min(900.0, max(120.0, 4 * self.neighbours.seconds))
            run = self._run_on_originals(contents, self.suite_command, seconds, SUITE)
            if run is None:
                raise Refused("the test command was refused")
            if run[0].exit_code in (0, 1):
                self.suite = NeighbourCheck(self.suite_command, run[0], seconds)
            else:
                self.suite_command = None  # a timeout or a collection error: nothing to compare with
        return self.suite

    def _run_on_originals(self, contents: dict[str, str], command: str, seconds: float,
                          description: str) -> tuple[TestOutcome, float] | None:
        """``command`` run on the original files, the written candidate (``contents``) put back after it:
        a baseline made only once a candidate needs it."""
        self._restore({})
        run = run_tests(self.door, command, seconds, description)
        self._write(contents)
        return run

    def examples(self, contents: dict[str, str]) -> str | None:
        """The output of the candidate's failing docstring examples, or None when they pass (or there
        are none, or they could not run)."""
        command = examples_command(self.plan.test_command, files_with_examples(contents))
        if not self.settings.check_examples or command is None:
            return None
        run = run_tests(self.door, command, self.test_limit, EXAMPLES)
        if run is None:
            return None
        if not examples_failed(run[0].exit_code):
            return None
        if self.neighbours is None:  # a small project: the examples the bug broke judge too (examples.py)
            return run[0].output
        if command not in self.examples_before:  # the same examples on the original files, once
            before = self._run_on_originals(contents, command, self.test_limit, EXAMPLES)
            self.examples_before[command] = before[0].output if before is not None else None
        originals = {p: self.original[p].decode("utf-8", "replace") for p in contents if p in self.original}
        return run[0].output if new_failures(run[0].output, self.examples_before[command], originals,
                                             contents) else None
