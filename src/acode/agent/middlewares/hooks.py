"""User hooks as a middleware: each agent event runs the configured commands (see hook_runner).

Event -> effect of the hooks' answer:
- SessionStart: additionalContext is added to the system prompt.
- BeforeAgent (a user prompt arrives): block stops before the model is asked; additionalContext is
  appended to the prompt.
- BeforeModel / AfterModel: block or continue:false stops the session; BeforeModel's additionalContext
  is added as a user message.
- BeforeTool: deny/block refuses the call (the model sees the reason), ask asks the user, a rewritten
  tool_input replaces the arguments.
- AfterTool: block replaces the result by the reason; additionalContext is appended to the output.
- AfterAgent (the model answered without a tool call): block sends the reason back to the model, so
  a hook can insist (for example "the tests still fail").
- PreCompress, SessionEnd: notification only.
``continue: false`` at any event (except SessionEnd) stops the session with ``stopReason``.
"""

from __future__ import annotations

from typing import Any

from acode.agent.loop.middleware import AgentState, Middleware, ToolDecision
from acode.agent.loop.stops import AgentStop
from acode.agent.middlewares.hook_runner import HookOutcome, HookRunner
from acode.audience import DO_NOT_RETRY
from acode.config.hooks import HookEvent
from acode.llm.types import Completion, Message, ToolCall
from acode.tools.base import ToolResult


class HookStopped(AgentStop):
    reason = "hook_stop"


class HooksMiddleware(Middleware):
    name = "hooks"

    def __init__(self, runner: HookRunner):
        self.runner = runner

    def _fire(self, event: HookEvent, payload: dict[str, Any], tool_name: str | None = None) -> HookOutcome:
        if not self.runner.has(event, tool_name):
            return HookOutcome()
        outcome = self.runner.run(event, payload, tool_name=tool_name)
        if outcome.stop and event != "SessionEnd":
            raise HookStopped(f"a {event} hook stopped the session: {outcome.stop_reason}")
        return outcome

    def on_session_start(self, state: AgentState) -> None:
        self.runner.session_id = state.session_id  # sessions get their id after the middlewares exist
        self.runner.cwd = state.workspace
        source = "resume" if len(state.history) > 1 else "startup"
        outcome = self._fire("SessionStart", {"source": source})
        if outcome.context:
            _add_system_context(state, outcome.context)

    def on_session_end(self, state: AgentState, reason: str) -> None:
        self._fire("SessionEnd", {"reason": reason})

    def on_user_prompt(self, state: AgentState, prompt: str) -> str | None:
        outcome = self._fire("BeforeAgent", {"prompt": prompt})
        if outcome.blocked:
            raise HookStopped(
                f"a BeforeAgent hook blocked the prompt: {outcome.reason}", reason="hook_blocked"
            )
        if outcome.context:
            return f"{prompt}\n\n{outcome.context}"
        return None

    def before_model(self, state: AgentState) -> None:
        last = state.history[-1] if state.history else None
        payload = {
            "message_count": len(state.history),
            "last_message": {"role": last.role, "content": last.content[-2000:]} if last else None,
            "turn": state.turn,
        }
        outcome = self._fire("BeforeModel", payload)
        if outcome.blocked:
            raise HookStopped(
                f"a BeforeModel hook blocked the model call: {outcome.reason}", reason="hook_blocked"
            )
        if outcome.context:
            state.history.append(Message.internal(outcome.context))

    def after_model(self, state: AgentState, completion: Completion) -> Completion | None:
        payload = {
            "llm_response": {
                "text": completion.text,
                "tool_calls": [c.model_dump() for c in completion.tool_calls],
                "finish_reason": completion.finish_reason,
            },
            "turn": state.turn,
        }
        outcome = self._fire("AfterModel", payload)
        if outcome.blocked:
            raise HookStopped(
                f"an AfterModel hook blocked the answer: {outcome.reason}", reason="hook_blocked"
            )
        return None

    def before_tool(self, state: AgentState, call: ToolCall) -> ToolDecision | None:
        outcome = self._fire("BeforeTool", {"tool_name": call.name, "tool_input": call.arguments}, call.name)
        if outcome.blocked:
            return ToolDecision("deny", f"blocked by a hook: {outcome.reason}", model_note=DO_NOT_RETRY)
        if outcome.ask:
            return ToolDecision("ask", outcome.reason or "a hook asks for confirmation", outcome.tool_input)
        if outcome.tool_input is not None:
            return ToolDecision("allow", "arguments rewritten by a hook", outcome.tool_input)
        return None

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> ToolResult | None:
        payload = {
            "tool_name": call.name,
            "tool_input": call.arguments,
            "tool_response": {"output": result.output, "error": result.error, "data": result.data},
        }
        outcome = self._fire("AfterTool", payload, call.name)
        if outcome.blocked:
            return ToolResult(error=f"the result was withheld by a hook: {outcome.reason}")
        if outcome.context and result.data is not None:
            return result.model_copy(update={"data": {**result.data, "hook_context": outcome.context}})
        if outcome.context:
            return result.model_copy(update={"output": f"{result.output}\n\n{outcome.context}".strip()})
        return None

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        outcome = self._fire("AfterAgent", {"prompt_response": text, "turn": state.turn})
        if outcome.blocked:
            return f"Not done yet: {outcome.reason}"
        return None

    def pre_compress(self, trigger: str, token_count: int) -> None:
        """Called by compression (not a loop hook): PreCompress is a notification."""
        self._fire("PreCompress", {"trigger": trigger, "token_count": token_count})


def _add_system_context(state: AgentState, context: str) -> None:
    if state.history and state.history[0].role == "system":
        first = state.history[0]
        state.history[0] = first.model_copy(update={"content": f"{first.content}\n\n{context}"})
    else:
        state.history.insert(0, Message.system(context))
