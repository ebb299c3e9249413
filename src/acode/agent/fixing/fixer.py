"""The test-driven fixer: run the tests, ask for the whole corrected file(s), write a candidate, run the
tests again, feed the failure back, sample when greedy answers stop helping, keep the best, and never
leave a candidate the tests reject in place of the original.

Everything goes through the loop's door (acode.agent.loop.solver_door): every write, test run and
restore is an ordinary tool call (approval, rules, hooks, checkpoints, session recording and the
trajectory all apply); every model call is a turn with every middleware and a recorded model step."""

from __future__ import annotations

import logging
from collections import Counter
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from acode.agent.fixing import pipeline
from acode.agent.fixing.answers import Candidate, candidate_key, failure_message, success_answer
from acode.agent.fixing.candidate_checks import Refused, WiderChecks, run_tests
from acode.agent.fixing.candidate_source import CandidateSource, Proposal, Why
from acode.agent.fixing.detect import FixPlan, plan_fix
from acode.agent.fixing.framings import build_framings
from acode.agent.fixing.line_edits import LineEdits
from acode.agent.fixing.localise.files_run import files_run
from acode.agent.fixing.localise.targets import Target, choose_targets, spec_views
from acode.agent.fixing.outcome import TestOutcome, trim_output
from acode.agent.fixing.rewrite import close_fence, reply_stop
from acode.agent.fixing.suspect_ask import SuspectAsk, suspect_asks
from acode.agent.fixing.whole_file_calls import CallThread
from acode.agent.loop.stops import AgentStop
from acode.config.agent import FixConfig
from acode.llm.types import Message

if TYPE_CHECKING:
    from acode.agent.loop.solver_door import SolverDoor

log = logging.getLogger("acode.agent.fixing")
NEEDED_TOOLS = {"write_file", "run_shell_command"}
# A candidate's test run may hang (a loop condition changed): it stops after this many times the original
# run's seconds, not sooner than agent.fix.test_seconds_min (a hanging test prints nothing)
TEST_TIME_FACTOR = 5


class TestDrivenFixer:
    __test__ = False  # not a pytest class

    def __init__(self, settings: FixConfig | None = None):
        self.settings = settings or FixConfig()

    # -- entry ---------------------------------------------------------------------------------
    def solve(self, door: SolverDoor, request: str) -> str | None:
        if not self.settings.enabled or door.approval_mode == "plan":
            return None
        if not NEEDED_TOOLS <= set(door.tool_names()):
            return None
        workspace = door.workspace
        plan = plan_fix(request, workspace, configured_command=self.settings.test_command)
        if plan is None:
            return None
        first = run_tests(door, plan.test_command)
        if first is None or not first[0].runnable:
            return None
        before, seconds = first
        limit = max(self.settings.test_seconds_min, TEST_TIME_FACTOR * seconds)
        # the files run whole, and traced: tracing every call slows it (pyparsing's 1,800 tests: 46 s, 124 s)
        files_limit = max(self.settings.files_seconds_min, 2 * limit)
        run = partial(run_tests, door)
        neighbours, suspected = files_run(run, plan, before, workspace, files_limit,
                                          check_neighbours=self.settings.check_neighbours,
                                          spectrum=self.settings.spectrum, time_factor=TEST_TIME_FACTOR)
        targets = choose_targets(plan, before, workspace, max_lines=self.settings.max_file_lines,
                                 excerpt_lines=self.settings.excerpt_file_lines,
                                 excerpt_chars=self.settings.excerpt_file_chars, suspects=suspected)
        asks = suspect_asks(suspected, workspace, self.settings.suspect_asks)
        if not targets and not asks:
            return None  # nothing that fits the prompt (a file past max_file_lines): the tool loop's work
        attempts = Attempts(self.settings, door, request, plan, before, targets, workspace, limit, asks)
        attempts.checks.neighbours = neighbours
        attempts.test_seconds = seconds
        return attempts.work()


class Attempts:
    """One fixing session: the state of the attempts for one request, shared by the sources of candidates
    (pipeline.SOURCES, in their order), and the one judge of every candidate. A call after the first is
    made only while the calls so far generated less than ``token_budget`` times the first call's
    completion tokens (tokens, not seconds: the same prompt stops at the same call on a busy machine); the
    suspects' greedy asks are not counted."""

    def __init__(
        self,
        settings: FixConfig,
        door: SolverDoor,
        request: str,
        plan: FixPlan,
        before: TestOutcome,
        targets: list[Target],
        workspace: Path,
        test_limit: float,
        asks: list[SuspectAsk] | None = None,
    ):
        asks = asks or []
        self.settings, self.door, self.plan = settings, door, plan
        self.test_limit = test_limit  # seconds a candidate's test run may take
        self.before = before
        self.views = [t.whole for t in targets]  # what replies are read against and merged into
        # and the suspect asks' files, which the targets may leave out (the prompt's room, a long file)
        extra = {a.view.path: a.view for a in asks if a.view.path not in {v.path for v in self.views}}
        self.all_views = [*self.views, *extra.values()]
        self.original = {v.path: (workspace / v.path).read_bytes() for v in self.all_views}
        self.shown = [t.shown for t in targets]  # what the prompts show: a long file as an excerpt
        self.context = spec_views(plan, before, workspace, targets)
        self.partial = sum(len(v.text.splitlines()) for v in self.views) > settings.whole_file_lines
        framings = build_framings(request, self.shown, self.context, plan.test_command, before,
                                  partial=self.partial, asks=asks)
        self.framings, self.line_framing = framings.whole, framings.line
        self.suspect_framings = framings.suspects
        self.function_framings = framings.functions
        self.asks = asks
        self.stop = reply_stop(self.views, self.partial)
        self.best: Candidate | None = None
        self.passing: Candidate | None = None  # passes the tests, fails its own examples
        self.breaking: tuple[Candidate, list[str]] | None = None  # the first that passed and broke others
        self.checks = WiderChecks(door, settings, plan, test_limit, self.original, restore=self._write,
                                  write=self._write_through_tools)
        self.tried: set[tuple[tuple[str, str], ...]] = set()
        # candidates that do not count against max_attempts, by their source's name
        self.uncounted: Counter[str] = Counter()
        self.unbudgeted = 0  # completion tokens outside token_budget: the suspect and large-function asks
        self.unrestored: list[str] = []  # files the write tool did not put back (refused or failed)
        self.stuck: set[int] = set()  # framings whose last reply was the file unchanged or a repeat
        self.spent_from = door.generated  # the door's completion tokens before the first call
        self.first_tokens = 0  # the first call's completion tokens (the budget's unit)
        self.first_started = self.first_seconds = 0.0  # when the first call began, and its seconds
        self.test_seconds = 0.0  # the test run's seconds before any edit
        # the whole-file calls' thread (whole_file_calls.py): the framing used last, the failure to follow up
        self.call_thread = CallThread(self.framings[0] if self.framings else [])

    def work(self) -> str | None:
        finished = False
        try:
            answer = pipeline.run(self)
            finished = True
        except Refused:
            self._restore_files()
            return None  # a write or test run was refused (approval, rules, a hook): the tool loop goes on
        finally:
            if not finished:
                self._restore_files()  # a limit or Ctrl-C: never leave an unchecked candidate
        if answer is not None:
            return answer
        if self.passing is not None:
            self._write(self.passing.contents)
            return self._success(self.passing, examples_fail=True)
        self._restore_files()
        message = self._failure()
        if self.settings.fallback_to_loop:
            self.door.tell(message + " Continue with the tools.")
            return None
        raise AgentStop(message, reason="tests_failing")

    def judge(self, source: CandidateSource, proposal: Proposal) -> tuple[str | None, Why]:
        """A source's candidate, tested unless it was already (then neither an answer nor a why), counted
        against max_attempts when its source's candidates are."""
        key = candidate_key(proposal.contents)
        if key in self.tried:
            return None, None
        if not source.counts_as_attempt:
            self.uncounted[source.name] += 1
        return self._judge(proposal.contents, key, proposal.note, may_keep=source.keep_if_partial)

    def _judge(self, contents: dict[str, str], key: tuple[tuple[str, str], ...], note: str = "",
               may_keep: bool = True) -> tuple[str | None, dict[str, str] | None]:
        """Write and test a new candidate: the success answer, or why it is not the answer (what the next
        whole-file call is told, rewrite.feedback_message's keywords; rendered only there: with no file
        shown, only the suspects, there is no whole-file prompt to tell it in)."""
        self.tried.add(key)
        candidate = Candidate(contents, self._try(contents), len(self.tried), note)
        if candidate.outcome.ok and (broke := self.checks.broken_neighbours()):
            self.breaking = self.breaking or (candidate, broke[0])
            return None, {"broke": broke[1]}
        if candidate.outcome.ok:
            examples = self.checks.examples(contents)
            if examples is None and not may_keep and (broke := self.checks.broken_suite(contents)):
                self.breaking = self.breaking or (candidate, broke[0])  # a guess the named files let through
                return None, {"broke": broke[1]}
            if examples is None:
                return self._success(candidate), None
            if may_keep:  # (else a guess that fails the file's own examples is never the answer)
                self.passing = self.passing or candidate
            return None, {"examples": trim_output(examples)}
        if may_keep and candidate.outcome.better_than(self.best.outcome if self.best else None):
            self.best = candidate
        output = trim_output(candidate.outcome.output)
        return None, {"output": output}

    def _success(self, candidate: Candidate, *, examples_fail: bool = False) -> str:
        which = candidate.which(self.uncounted[LineEdits.name], self.settings.max_attempts)
        neighbours = self.checks.neighbours
        return success_answer(self.all_views, candidate, self.plan.test_command, which,
                              examples_fail=len(self.tried) if examples_fail else 0,
                              files_checked=neighbours.command if neighbours else None)

    def _failure(self) -> str:
        best = self.best if self.best is not None and self.best.outcome.better_than(self.before) else None
        factor = self.settings.token_budget
        budget = (f" Its model calls reached agent.fix.token_budget ({factor:g} times the first call's "
                  f"{self.first_tokens} tokens)." if self.over_budget() else "")
        if not self.door.has_model:
            budget = " No model is configured (model.backend: none): only edits that need none were tried."
        return failure_message(self.plan.test_command, [v.path for v in self.all_views], len(self.tried),
                               kept=best, before=self.before, unrestored=self.unrestored,
                               breaking=self.breaking, budget=budget)

    def over_budget(self) -> bool:
        """Whether the calls so far generated ``token_budget`` times the first call's completion tokens
        (never when it is 0): no call follows then."""
        factor = self.settings.token_budget
        spent = self.door.generated - self.spent_from - self.unbudgeted
        return bool(factor) and spent >= factor * max(self.first_tokens, 1)

    def to_sample(self, base: list[Message]) -> list[Message] | None:
        """The framing to sample: the one used last, unless its reply was an echo or a repeat, then another
        one that was not; None when none is left."""
        if self.settings.sample_after_echoes:
            return base
        order = [base, *(f for f in self.framings if f is not base)]
        return next((f for f in order if self._index(f) not in self.stuck), None)

    def note_stuck(self, framing: list[Message], stuck: bool) -> None:
        index = self._index(framing)
        if index is not None:  # a framing itself, not a failure fed back
            (self.stuck.add if stuck else self.stuck.discard)(index)

    def _index(self, framing: list[Message]) -> int | None:
        return next((i for i, f in enumerate(self.framings) if f is framing), None)

    def ask(self, messages: list[Message], temperature: float, *, seed: int, max_tokens: int | None = None,
             stop: list[str] | None = None) -> str:
        text = "".join(v.text for v in self.shown)
        return close_fence(self.door.ask(
            messages,
            temperature=temperature,
            seed=seed,
            max_tokens=max_tokens or self.door.output_tokens_for(text),
            stop=self.stop if stop is None else stop,
        ))

    def _try(self, contents: dict[str, str]) -> TestOutcome:
        self._write_through_tools(contents)
        run = run_tests(self.door, self.plan.test_command, self.test_limit)
        if run is None:
            raise Refused("the test command was refused")
        return run[0]

    def _write_through_tools(self, contents: dict[str, str]) -> None:
        for path, text in contents.items():
            step = self.door.tool("write_file", {"file_path": path, "content": text})
            if step.decision != "allowed" or not step.ok:
                raise Refused(step.error or step.decision)

    # -- ending --------------------------------------------------------------------------------
    def _restore_files(self) -> None:
        """Back to the original files, unless the best candidate passes more tests than they did."""
        keep = self.best is not None and self.best.outcome.better_than(self.before)
        self._write(self.best.contents if keep and self.best else {})

    def _write(self, contents: dict[str, str]) -> None:
        """These contents, the other targets as they were: through the door's restore, which writes the
        files that differ with the write tool."""
        wanted = {path: contents[path].encode("utf-8") if path in contents else data
                  for path, data in self.original.items()}
        self.unrestored = self.door.restore(wanted)
        if self.unrestored:
            log.warning("the write tool did not put back %s", ", ".join(self.unrestored))
