"""Keeping a small local model on task within one user prompt. Measured on the 0.5B model with the
"create hello.py that prints hello, then run it" task: without these it rewrote hello.py until a limit
stopped it; with them it writes, runs, and answers.

- repeat guard: a call identical to one that just succeeded is not run again; the model is told so,
  with the request quoted back;
- kind blocking: for the next call only, the tools of the repeated call's kind are not offered (with
  constrained decoding the model then has to choose something else - a message alone did not do it);
- reminder: each successful tool result ends with one line restating the request and the steps done
  (small models read the latest tool result as the instruction);
- turn guards (acode.agent.loop.turn_guards): when the next call may only answer;
- requested run (acode.agent.loop.requested_run): an answer before the run the request ordered gets
  one reminder, the next call may only run a command, and the one after it only answer.

What the model is told stays between the loop and the model: people see a short ``display`` line.
"""

from __future__ import annotations

from collections.abc import Iterable

from acode.agent.loop.requested_run import RequestedRun
from acode.agent.loop.result import ToolStep
from acode.agent.loop.turn_guards import ANSWER_ONLY_SCHEMA, TurnGuards
from acode.llm.types import ToolCall, ToolSpec, call_key, without_titles
from acode.tools.base import ToolRegistry, ToolResult

QUOTE_CHARS = 300
REMEMBERED_STEPS = 5


def compact_specs(specs: Iterable[ToolSpec]) -> list[ToolSpec]:
    """Tool schemas without any "title" (see acode.llm.types.without_titles)."""
    return [
        spec.model_copy(update={"parameters": without_titles(spec.parameters, nested=True)}) for spec in specs
    ]


class StepGuide:
    """State of the aids for one user prompt (the loop makes one per ``send``)."""

    def __init__(self, registry: ToolRegistry, request: str = "", *, remind: bool = True,
                 requested_run: bool = False):
        self.registry = registry
        self.request = request
        self.remind = remind
        self.succeeded: dict[str, str] = {}  # call key -> output, previous turn only
        self.done: list[str] = []  # successful actions, for the reminder
        self.blocked: set[str] = set()  # tools not offered in the next call
        self.guards = TurnGuards(request)
        self.requested_run = RequestedRun(self.guards.typed if requested_run else "", registry)

    def offered(self) -> list[ToolSpec]:
        specs = compact_specs(self.registry.specs())
        return [spec for spec in specs if spec.name not in self.blocked] or specs

    def answer_only(self) -> dict | None:
        """The constraint of the next call: None (a tool call or an answer), or the answer-only schema
        (the tools stay described, so the prompt and its cached prefix do not change)."""
        return ANSWER_ONLY_SCHEMA if self.guards.answer_next else None

    def precheck(self, call: ToolCall) -> ToolResult | None:
        guarded = self.guards.precheck(call)
        if guarded is not None:
            return guarded
        previous = self.succeeded.get(call_key(call.name, call.arguments))
        if previous is None:
            return None
        request = f" The user asked: {self.guards.typed[:QUOTE_CHARS]!r}." if self.request else ""
        return ToolResult(
            error="not run again: your previous step was exactly this call and it succeeded "
            f"(result: {previous[:QUOTE_CHARS]}).{request} Do the part of it that is not done yet with "
            "another tool, or answer the user if everything is done.",
            display="not run again: the same call had just succeeded",
        )

    def reminder(self, step: ToolStep) -> str:
        if not (self.remind and step.ok and self.request):
            return ""
        args = step.arguments
        target = str(args.get("file_path") or args.get("command") or args.get("pattern") or "")[:60]
        action = f"{step.name} {target}".strip()
        if action not in self.done:
            self.done.append(action)
        return (
            f"\n(Task: {self.guards.typed[:200]}. Done so far: {'; '.join(self.done[-REMEMBERED_STEPS:])}."
            " Take the next step, or answer if the task is done.)"
        )

    def after_turn(self, steps: list[ToolStep]) -> None:
        succeeded = {}
        for step in steps:
            key = call_key(step.name, step.arguments)
            if step.ok:
                succeeded[key] = step.output
            elif step.decision == "repeated" and key in self.succeeded:
                succeeded[key] = self.succeeded[key]  # still the same success being repeated
        self.succeeded = succeeded
        repeated = {
            tool.kind for s in steps if s.decision == "repeated" and (tool := self.registry.get(s.name))
        }
        self.blocked = {tool.name for tool in self.registry if tool.kind in repeated}
        if self.requested_run.ran_after_reminder(steps):
            self.guards.answer_next = "the command the user asked to run has run"
