"""Running the tool calls of one model answer: validate, approve, ``before_tool`` hooks, run,
``after_tool`` hooks, report. Consecutive read-only calls run together in a thread pool; edits and
shell commands run one at a time, in the order the model gave them."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from pydantic import BaseModel

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.middleware import AgentState, Middleware, ToolDecision
from acode.agent.loop.result import ToolStep
from acode.llm.types import ToolCall
from acode.tools.base import Tool, ToolContext, ToolRegistry, ToolResult, run_tool


@dataclass
class PreparedCall:
    call: ToolCall
    tool: Tool | None = None
    args: BaseModel | None = None
    rejection: ToolResult | None = None  # set when the call will not run
    decision: str = "allowed"  # allowed | denied | invalid | repeated
    overhead: float = 0.0


Done = Callable[[PreparedCall, ToolStep, ToolResult], None]


class ToolRunner:
    def __init__(
        self,
        registry: ToolRegistry,
        ctx: ToolContext,
        policy: ApprovalPolicy,
        middlewares: Sequence[Middleware],
        *,
        workers: int = 4,
        on_start: Callable[[ToolCall], None] | None = None,
        precheck: Callable[[ToolCall], ToolResult | None] | None = None,
    ):
        """``precheck``: a result that replaces running the call (the loop's repeat guard), or None."""
        self.registry = registry
        self.ctx = ctx
        self.policy = policy
        self.middlewares = middlewares
        self.workers = max(1, workers)
        self.on_start = on_start or (lambda call: None)
        self.precheck = precheck or (lambda call: None)

    def execute(self, state: AgentState, calls: Sequence[ToolCall], on_done: Done) -> None:
        """Run ``calls``; ``on_done`` is told about each one, in order, as soon as it finished."""
        batch: list[PreparedCall] = []
        for call in calls:
            tool = self.registry.get(call.name)
            if tool is not None and tool.read_only:
                batch.append(self.prepare(state, call))  # a rejected one just reports its error
                continue
            self._run_batch(state, batch, on_done)  # finish earlier reads before asking about an edit
            batch = []
            self._run_batch(state, [self.prepare(state, call)], on_done)
        self._run_batch(state, batch, on_done)

    def prepare(self, state: AgentState, call: ToolCall) -> PreparedCall:
        started = time.perf_counter()
        prepared = self._prepare(state, call)
        prepared.overhead = time.perf_counter() - started
        return prepared

    def _prepare(self, state: AgentState, call: ToolCall) -> PreparedCall:
        checked = self.registry.validate(call)
        if isinstance(checked, ToolResult):
            return PreparedCall(call, rejection=checked, decision="invalid")
        tool, args = checked
        repeated = self.precheck(call)
        if repeated is not None:
            return PreparedCall(call, tool, rejection=repeated, decision="repeated")
        decided = self.policy.decide(state, call, tool, self.ctx)
        decision = self.policy.resolve(state, call, tool, decided, self.ctx)
        if decision.action == "deny":
            return PreparedCall(call, tool, rejection=_denied(decision), decision="denied")
        for middleware in self.middlewares:
            verdict = middleware.before_tool(state, call)
            if verdict is None:
                continue
            if verdict.rewritten_arguments is not None:
                call = ToolCall(id=call.id, name=call.name, arguments=verdict.rewritten_arguments)
                checked = self.registry.validate(call)
                if isinstance(checked, ToolResult):
                    return PreparedCall(call, tool, rejection=checked, decision="invalid")
                tool, args = checked
                # the rules judge what will actually run: the rewritten call is decided afresh
                again = self.policy.decide(state, call, tool, self.ctx)
                if again.action == "deny":
                    again.reason = f"{again.reason} (the arguments as rewritten by a {middleware.name} hook)"
                    return PreparedCall(call, tool, rejection=_denied(again), decision="denied")
                if again.action == "ask" and verdict.action == "allow":
                    verdict = ToolDecision("ask", again.reason, verdict.rewritten_arguments)
            verdict = self.policy.resolve(state, call, tool, verdict, self.ctx)
            if verdict.action == "deny":
                verdict.reason = verdict.reason or f"blocked by {middleware.name}"
                return PreparedCall(call, tool, rejection=_denied(verdict), decision="denied")
        return PreparedCall(call, tool, args)

    def _run_batch(self, state: AgentState, batch: list[PreparedCall], on_done: Done) -> None:
        if not batch:
            return
        for prepared in batch:
            if prepared.rejection is None:
                self.on_start(prepared.call)
        if len(batch) == 1 or self.workers == 1:
            for prepared in batch:
                self._finish(state, prepared, *self._run(prepared), on_done)
            return
        workers = min(self.workers, len(batch))
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="acode-tool") as pool:
            futures = [pool.submit(self._run, prepared) for prepared in batch]
            for prepared, future in zip(batch, futures, strict=True):
                self._finish(state, prepared, *future.result(), on_done)

    def _run(self, prepared: PreparedCall) -> tuple[ToolResult, float]:
        if prepared.rejection is not None:
            return prepared.rejection, 0.0
        assert prepared.tool is not None and prepared.args is not None
        started = time.perf_counter()
        result = run_tool(prepared.tool, prepared.args, self.ctx)
        return result, time.perf_counter() - started

    def _finish(
        self, state: AgentState, prepared: PreparedCall, result: ToolResult, seconds: float, on_done: Done
    ) -> None:
        started = time.perf_counter()
        if prepared.rejection is None:
            for middleware in self.middlewares:
                replaced = middleware.after_tool(state, prepared.call, result)
                if replaced is not None:
                    result = replaced
        step = ToolStep(
            turn=state.turn,
            call_id=prepared.call.id,
            name=prepared.call.name,
            arguments=prepared.call.arguments,
            decision=prepared.decision,  # type: ignore[arg-type]
            ok=result.ok,
            output=result.for_model(),
            error=result.for_person() if not result.ok else None,
            seconds=seconds,
            overhead_seconds=prepared.overhead + time.perf_counter() - started,
        )
        on_done(prepared, step, result)


def _denied(decision: ToolDecision) -> ToolResult:
    return ToolResult(error=decision.reason, model_note=decision.model_note or None)
