"""The test-driven fixer: run the tests, ask for the whole corrected file(s), write a candidate, run the
tests again, feed the failure back, sample when greedy answers stop helping, keep the best, and never
leave a candidate the tests reject in place of the original.

Every write and test run is an ordinary tool call through the loop (approval, rules, hooks, session
recording and the trajectory all apply); every model call is a recorded model step."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from acode.agent.fixing.detect import FixPlan, plan_fix
from acode.agent.fixing.examples import examples_command, examples_failed, files_with_examples
from acode.agent.fixing.harness import ask, output_tokens_for, tool
from acode.agent.fixing.outcome import TestOutcome, read_outcome, trim_output
from acode.agent.fixing.rewrite import (
    UNCHANGED,
    close_fence,
    feedback_message,
    one_call_messages,
    parse_reply,
    reply_stop,
    task_messages,
)
from acode.agent.fixing.targets import Target, choose_targets, spec_views
from acode.agent.loop.stops import AgentStop
from acode.llm.types import Message

if TYPE_CHECKING:
    from acode.agent.loop.agent_loop import AgentLoop, _Run

NEEDED_TOOLS = {"write_file", "run_shell_command"}
DIFF_LINES = 40


@dataclass
class FixSettings:
    enabled: bool = True
    max_attempts: int = 4  # candidates written and tested
    # a reply that is no candidate (unchanged, unusable) uses a call, not an attempt. More calls help the
    # 0.5B (it echoes on most greedy calls, fixes on some samples) but not the 1.5B: on 8 unseen tasks its
    # calls 5 and 6 solved nothing and cost a third of the time
    max_model_calls: int = 4
    greedy_attempts: int = 3  # the one call, the fixer's framing, the last failure fed back; then sampled
    # A framing whose reply was the file unchanged (or a candidate already tried) is not sampled: on the
    # 1.5B no sample of such a framing gave a candidate (10 of 10 on the tune half's Novel/0 and 6), each
    # a whole file's generation. The 0.5B does fix some of its echoes with a sample (calc.py's `a - b`:
    # 2 greedy echoes, then a sampled fix): this brings those samples back
    sample_after_echoes: bool = False
    check_examples: bool = True  # a candidate must also pass its files' docstring examples
    sample_temperature: float = 0.7
    max_file_lines: int = 4000  # larger files are left to the tool loop
    whole_file_lines: int = 150  # above this, ask only for the functions that change (merged by name)
    excerpt_file_lines: int = 400  # above this, show only what the failing tests reach (excerpt.py)
    test_command: str | None = None  # else: from the request, else discovered
    fallback_to_loop: bool = False  # after failed attempts, continue with the tool loop


class _Refused(Exception):
    """A write or a test run the approval policy, a rule or a hook did not allow."""


@dataclass
class _Candidate:
    contents: dict[str, str]
    outcome: TestOutcome
    attempt: int


class TestDrivenFixer:
    __test__ = False  # not a pytest class

    def __init__(self, settings: FixSettings | None = None):
        self.settings = settings or FixSettings()

    # -- entry ---------------------------------------------------------------------------------
    def solve(self, loop: AgentLoop, run: _Run, request: str) -> str | None:
        if not self.settings.enabled or run.state.approval_mode == "plan":
            return None
        if not NEEDED_TOOLS <= set(loop.registry.names()):
            return None
        workspace = Path(loop.ctx.workspace)
        plan = plan_fix(request, workspace, configured_command=self.settings.test_command)
        if plan is None:
            return None
        before = self._run_tests(loop, run, plan.test_command)
        if before is None or not before.runnable:
            return None
        targets = choose_targets(plan, before, workspace, max_lines=self.settings.max_file_lines,
                                 excerpt_lines=self.settings.excerpt_file_lines)
        if not targets:
            return None
        return _Attempts(self.settings, loop, run, request, plan, before, targets, workspace).work()

    @staticmethod
    def _run_tests(loop: AgentLoop, run: _Run, command: str) -> TestOutcome | None:
        step = tool(loop, run, "run_shell_command", {"command": command, "description": "run the tests"})
        if step.decision != "allowed" or not step.ok:
            return None
        return read_outcome(step.output)


class _Attempts:
    """One fixing session: the state of the attempts for one request.

    The first call is one call of the model as anyone would make it (the one-call layout, greedy); the
    tests judge its answer like every later one, so the fixer cannot do worse than that call. Then the
    fixer's own framing (greedy), then the last failure fed back (greedy, while ``greedy_attempts``
    last), then samples of the framing used last (its prompt is still in the KV cache, so a sample
    costs little more than its answer), never of a framing whose last reply was the file unchanged or a
    candidate already tried (another framing then, else stop). A reply that is no candidate (the file
    unchanged, no usable block) is never written or tested."""

    def __init__(
        self,
        settings: FixSettings,
        loop: AgentLoop,
        run: _Run,
        request: str,
        plan: FixPlan,
        before: TestOutcome,
        targets: list[Target],
        workspace: Path,
    ):
        self.settings, self.loop, self.run, self.plan = settings, loop, run, plan
        self.before, self.workspace = before, workspace
        self.original = {t.whole.path: (workspace / t.whole.path).read_bytes() for t in targets}
        self.views = [t.whole for t in targets]  # what replies are read against and merged into
        self.shown = [t.shown for t in targets]  # what the prompts show: a long file as an excerpt
        self.context = spec_views(plan, before, workspace, targets)
        self.partial = sum(len(v.text.splitlines()) for v in self.views) > settings.whole_file_lines
        task = (request, self.shown, self.context, plan.test_command, trim_output(before.output))
        self.framings = [
            one_call_messages(*task, failing=not before.ok, partial=self.partial),
            task_messages(*task, failing=not before.ok, partial=self.partial),
        ]
        self.stop = reply_stop(self.views, self.partial)
        self.best: _Candidate | None = None
        self.passing: _Candidate | None = None  # passes the tests, fails its own examples
        self.tried: set[tuple[tuple[str, str], ...]] = set()
        self.stuck: set[int] = set()  # framings whose last reply was the file unchanged or a repeat

    def work(self) -> str | None:
        finished = False
        try:
            answer = self._attempts()
            finished = True
        except _Refused:
            self._restore_files()
            return None  # a write or test run was refused (approval, rules, a hook): the tool loop goes on
        finally:
            if not finished:
                self._restore_files()  # a limit or Ctrl-C: never leave an unchecked candidate
        if answer is not None:
            return answer
        if self.passing is not None:
            self._write(self.passing.contents)
            return self._success_answer(self.passing, examples_fail=True)
        self._restore_files()
        message = self._failure_message()
        if self.settings.fallback_to_loop:
            self.loop.append(self.run.state, Message.user(message + " Continue with the tools."))
            return None
        raise AgentStop(message, reason="tests_failing")

    def _attempts(self) -> str | None:
        settings = self.settings
        follow_up: list[Message] = []  # the last candidate's framing, its reply and why it failed
        base = self.framings[0]
        for call in range(1, settings.max_model_calls + 1):
            if len(self.tried) >= settings.max_attempts:
                break
            greedy = call <= settings.greedy_attempts
            if call <= len(self.framings):
                base = framing = self.framings[call - 1]
            elif greedy and follow_up:
                framing, follow_up = follow_up, []
                base = next(f for f in self.framings if framing[: len(f)] == f)
            else:  # a sample of the framing used last: its prompt is still in the KV cache
                greedy, framing = False, self._to_sample(base)
                if framing is None:
                    break  # every framing echoes: its samples would too
                base = framing
            reply = self._ask(framing, 0.0 if greedy else settings.sample_temperature, call)
            parsed = parse_reply(reply, self.views, self.context)
            key = None if isinstance(parsed, str) else tuple(sorted(parsed.items()))
            self._note_stuck(framing, parsed == UNCHANGED or key in self.tried)
            if key is None or key in self.tried:
                continue  # not a candidate (or one already tested): never written or tested
            self.tried.add(key)
            candidate = _Candidate(parsed, self._try(parsed), len(self.tried))
            if candidate.outcome.ok:
                examples = self._examples(parsed)
                if examples is None:
                    return self._success_answer(candidate)
                self.passing = self.passing or candidate
                feedback = feedback_message(
                    self.views, self.plan.test_command, examples=trim_output(examples), partial=self.partial
                )
            else:
                if candidate.outcome.better_than(self.best.outcome if self.best else None):
                    self.best = candidate
                feedback = feedback_message(
                    self.views, self.plan.test_command, output=trim_output(candidate.outcome.output),
                    partial=self.partial,
                )
            follow_up = [*base, Message.assistant(reply), feedback]
        return None

    def _to_sample(self, base: list[Message]) -> list[Message] | None:
        """The framing to sample: the one used last, unless its reply was an echo or a repeat, then another
        one that was not; None when none is left."""
        if self.settings.sample_after_echoes:
            return base
        order = [base, *(f for f in self.framings if f is not base)]
        return next((f for f in order if self._index(f) not in self.stuck), None)

    def _note_stuck(self, framing: list[Message], stuck: bool) -> None:
        index = self._index(framing)
        if index is not None:  # a framing itself, not a failure fed back
            (self.stuck.add if stuck else self.stuck.discard)(index)

    def _index(self, framing: list[Message]) -> int | None:
        return next((i for i, f in enumerate(self.framings) if f is framing), None)

    def _ask(self, messages: list[Message], temperature: float, call: int) -> str:
        text = "".join(v.text for v in self.shown)
        return close_fence(ask(
            self.loop,
            self.run,
            messages,
            temperature=temperature,
            seed=call,
            max_tokens=output_tokens_for(self.loop, text),
            stop=self.stop,
        ))

    def _try(self, contents: dict[str, str]) -> TestOutcome:
        self._write_through_tools(contents)
        outcome = TestDrivenFixer._run_tests(self.loop, self.run, self.plan.test_command)
        if outcome is None:
            raise _Refused("the test command was refused")
        return outcome

    def _write_through_tools(self, contents: dict[str, str]) -> None:
        for path, text in contents.items():
            step = tool(self.loop, self.run, "write_file", {"file_path": path, "content": text})
            if step.decision != "allowed" or not step.ok:
                raise _Refused(step.error or step.decision)

    def _examples(self, contents: dict[str, str]) -> str | None:
        """The output of the candidate's failing docstring examples, or None when they pass (or there
        are none, or they could not run)."""
        command = examples_command(self.plan.test_command, files_with_examples(contents))
        if not self.settings.check_examples or command is None:
            return None
        step = tool(self.loop, self.run, "run_shell_command",
                    {"command": command, "description": "run the docstring examples"})
        if step.decision != "allowed" or not step.ok:
            return None
        outcome = read_outcome(step.output)
        return outcome.output if examples_failed(outcome.exit_code) else None

    # -- ending --------------------------------------------------------------------------------
    def _restore_files(self) -> None:
        """Back to the original files, unless the best candidate passes more tests than they did."""
        keep = self.best is not None and self.best.outcome.better_than(self.before)
        self._write(self.best.contents if keep and self.best else {})

    def _write(self, contents: dict[str, str]) -> None:
        """These contents, the other targets as they were (directly: the tools already wrote each one)."""
        for path, data in self.original.items():
            if path in contents:
                (self.workspace / path).write_text(contents[path], encoding="utf-8")
            else:
                (self.workspace / path).write_bytes(data)

    def _success_answer(self, candidate: _Candidate, *, examples_fail: bool = False) -> str:
        contents, outcome = candidate.contents, candidate.outcome
        diff = []
        for view in self.views:
            if view.path in contents:
                diff += difflib.unified_diff(
                    view.text.splitlines(),
                    contents[view.path].splitlines(),
                    f"a/{view.path}",
                    f"b/{view.path}",
                    n=1,
                    lineterm="",
                )
        shown = "\n".join(diff[:DIFF_LINES]) + ("\n..." if len(diff) > DIFF_LINES else "")
        caveat = (
            f" Its docstring examples still fail (no candidate of {len(self.tried)} passed both)."
            if examples_fail else ""
        )
        return (
            f"Changed {', '.join(contents)}; `{self.plan.test_command}` passes now ({outcome.summary()}, "
            f"attempt {candidate.attempt} of {self.settings.max_attempts}).{caveat}\n\n```diff\n{shown}\n```"
        )

    def _failure_message(self) -> str:
        tried = len(self.tried)
        if self.best is not None and self.best.outcome.better_than(self.before):
            kept = (
                f" Kept the version that does best ({self.best.outcome.summary()}, before: "
                f"{self.before.summary()})."
            )
        else:
            kept = " The files are as they were."
        return (
            f"`{self.plan.test_command}` still fails after {tried} candidate fix(es) of "
            f"{', '.join(self._paths())}.{kept}"
        )

    def _paths(self) -> list[str]:
        return [v.path for v in self.views]
