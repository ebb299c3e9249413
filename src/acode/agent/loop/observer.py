"""Who watches the loop: the session recorder (writes every message as it is produced) and the user
interface (progress, tool calls, diffs). Observers only watch; to change behaviour write a Middleware."""

from __future__ import annotations

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.result import AgentResult, ModelStep, ToolStep
from acode.llm.types import ToolCall
from acode.tools.base import ToolResult


class LoopObserver:
    """No-op base; override what you need."""

    def on_history(self, state: AgentState) -> None:
        """``state.history`` changed (a message was appended, or a middleware rewrote it)."""

    def on_model_start(self, state: AgentState) -> None: ...

    def on_text(self, chunk: str) -> None:
        """A streamed piece of plain-text answer."""

    def on_model_step(self, state: AgentState, step: ModelStep) -> None: ...

    def on_tool_start(self, state: AgentState, call: ToolCall) -> None: ...

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None: ...

    def on_stop(self, state: AgentState, result: AgentResult) -> None: ...


class Observers(LoopObserver):
    """Fan one notification out to many observers, in order."""

    def __init__(self, observers: list[LoopObserver] | tuple[LoopObserver, ...] = ()):
        self.items = list(observers)

    def on_history(self, state: AgentState) -> None:
        for obs in self.items:
            obs.on_history(state)

    def on_model_start(self, state: AgentState) -> None:
        for obs in self.items:
            obs.on_model_start(state)

    def on_text(self, chunk: str) -> None:
        for obs in self.items:
            obs.on_text(chunk)

    def on_model_step(self, state: AgentState, step: ModelStep) -> None:
        for obs in self.items:
            obs.on_model_step(state, step)

    def on_tool_start(self, state: AgentState, call: ToolCall) -> None:
        for obs in self.items:
            obs.on_tool_start(state, call)

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None:
        for obs in self.items:
            obs.on_tool_step(state, step, result)

    def on_stop(self, state: AgentState, result: AgentResult) -> None:
        for obs in self.items:
            obs.on_stop(state, result)
