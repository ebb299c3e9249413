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

from acode.agent.fixing.detect import FixPlan, is_test_file, plan_fix
from acode.agent.fixing.harness import ask, output_tokens_for, read_text, tool
from acode.agent.fixing.outcome import (
    TestOutcome,
    implicated_files,
    imported_files,
    read_outcome,
    trim_output,
)
from acode.agent.fixing.rewrite import FileView, feedback_message, parse_reply, task_messages
from acode.agent.loop.stops import AgentStop
from acode.llm.types import Message

if TYPE_CHECKING:
    from acode.agent.loop.agent_loop import AgentLoop, _Run

NEEDED_TOOLS = {"write_file", "run_shell_command"}
MAX_CONTEXT_CHARS = 4000  # of test files shown as the specification
DIFF_LINES = 40


@dataclass
class FixSettings:
    enabled: bool = True
    max_attempts: int = 4  # model calls
    greedy_attempts: int = 2  # then sampled at sample_temperature
    sample_temperature: float = 0.7
    max_file_lines: int = 400  # larger files are left to the tool loop
    whole_file_lines: int = 150  # above this, ask only for the functions that change (merged by name)
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
        targets = self._targets(plan, before, workspace)
        if not targets:
            return None
        return _Attempts(self.settings, loop, run, request, plan, before, targets, workspace).work()

    def _targets(self, plan: FixPlan, before: TestOutcome, workspace: Path) -> list[str]:
        paths = list(plan.targets)
        if not paths:
            implicated = implicated_files(before.output, workspace)
            paths = [p for p in implicated if not is_test_file(p) and p.suffix == ".py"]
        if not paths:
            for test in plan.protected or [
                p for p in implicated_files(before.output, workspace) if is_test_file(p)
            ]:
                paths += [p for p in imported_files(read_text(workspace / test), workspace) if p not in paths]
        limit = self.settings.max_file_lines
        return [p.as_posix() for p in paths[:3] if len(read_text(workspace / p).splitlines()) <= limit]

    @staticmethod
    def _run_tests(loop: AgentLoop, run: _Run, command: str) -> TestOutcome | None:
        step = tool(loop, run, "run_shell_command", {"command": command, "description": "run the tests"})
        if step.decision != "allowed" or not step.ok:
            return None
        return read_outcome(step.output)


class _Attempts:
    """One fixing session: the state of the attempts for one request."""

    def __init__(
        self,
        settings: FixSettings,
        loop: AgentLoop,
        run: _Run,
        request: str,
        plan: FixPlan,
        before: TestOutcome,
        targets: list[str],
        workspace: Path,
    ):
        self.settings, self.loop, self.run, self.plan = settings, loop, run, plan
        self.before, self.workspace = before, workspace
        self.original = {p: (workspace / p).read_bytes() for p in targets}
        self.views = [FileView(p, read_text(workspace / p)) for p in targets]
        context = self._context_files(targets)
        self.partial = sum(len(v.text.splitlines()) for v in self.views) > settings.whole_file_lines
        self.messages = task_messages(
            request,
            self.views,
            context,
            plan.test_command,
            trim_output(before.output),
            failing=not before.ok,
            partial=self.partial,
        )
        self.best: _Candidate | None = None
        self.tried: set[tuple[tuple[str, str], ...]] = set()

    def _context_files(self, targets: list[str]) -> list[FileView]:
        tests = list(self.plan.protected) or [
            p for p in implicated_files(self.before.output, self.workspace) if is_test_file(p)
        ]
        views, budget = [], MAX_CONTEXT_CHARS
        for path in tests:
            text = read_text(self.workspace / path)
            if path.as_posix() in targets or len(text) > budget:
                continue
            views.append(FileView(path.as_posix(), text))
            budget -= len(text)
        return views

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
        self._restore_files()
        message = self._failure_message()
        if self.settings.fallback_to_loop:
            self.loop.append(self.run.state, Message.user(message + " Continue with the tools."))
            return None
        raise AgentStop(message, reason="tests_failing")

    def _attempts(self) -> str | None:
        last_reply, feedback = "", None
        for attempt in range(1, self.settings.max_attempts + 1):
            messages = list(self.messages)
            if feedback is not None:
                messages += [Message.assistant(last_reply), feedback]
            greedy = attempt <= self.settings.greedy_attempts
            last_reply = self._ask(messages, 0.0 if greedy else self.settings.sample_temperature, attempt)
            parsed = parse_reply(last_reply, self.views)
            if isinstance(parsed, str):
                feedback = feedback_message(
                    self._paths(), self.plan.test_command, problem=parsed, partial=self.partial
                )
                continue
            key = tuple(sorted(parsed.items()))
            if key in self.tried:
                feedback = feedback_message(
                    self._paths(),
                    self.plan.test_command,
                    partial=self.partial,
                    problem="this version was already tried and failed the tests",
                )
                continue
            self.tried.add(key)
            outcome = self._try(parsed)
            if outcome.better_than(self.best.outcome if self.best else None):
                self.best = _Candidate(parsed, outcome, attempt)
            if outcome.ok:
                return self._success_answer(parsed, outcome, attempt)
            feedback = feedback_message(
                self._paths(),
                self.plan.test_command,
                output=trim_output(outcome.output),
                partial=self.partial,
            )
        return None

    def _ask(self, messages: list[Message], temperature: float, attempt: int) -> str:
        text = "".join(v.text for v in self.views)
        return ask(
            self.loop,
            self.run,
            messages,
            temperature=temperature,
            seed=attempt,
            max_tokens=output_tokens_for(self.loop, text),
        )

    def _try(self, contents: dict[str, str]) -> TestOutcome:
        for path, text in contents.items():
            step = tool(self.loop, self.run, "write_file", {"file_path": path, "content": text})
            if step.decision != "allowed" or not step.ok:
                raise _Refused(step.error or step.decision)
        outcome = TestDrivenFixer._run_tests(self.loop, self.run, self.plan.test_command)
        if outcome is None:
            raise _Refused("the test command was refused")
        return outcome

    # -- ending --------------------------------------------------------------------------------
    def _restore_files(self) -> None:
        """Back to the original files, unless the best candidate passes more tests than they did."""
        keep = self.best is not None and self.best.outcome.better_than(self.before)
        for path, data in self.original.items():
            if keep and path in self.best.contents:
                (self.workspace / path).write_text(self.best.contents[path], encoding="utf-8")
            else:
                (self.workspace / path).write_bytes(data)

    def _success_answer(self, contents: dict[str, str], outcome: TestOutcome, attempt: int) -> str:
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
        return (
            f"Changed {', '.join(contents)}; `{self.plan.test_command}` passes now ({outcome.summary()}, "
            f"attempt {attempt} of {self.settings.max_attempts}).\n\n```diff\n{shown}\n```"
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
