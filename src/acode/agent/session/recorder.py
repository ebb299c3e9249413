"""Writes a running session to the store as it happens: every message the moment it is appended, every
model call and tool call as an event, and the outcome of every prompt."""

from __future__ import annotations

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.result import AgentResult, ModelStep, ToolStep
from acode.agent.session.said import TITLE_CHARS, first_words
from acode.llm.types import Message
from acode.store.sessions import SessionStore
from acode.tools.base import ToolResult


class SessionRecorder(LoopObserver):
    def __init__(self, store: SessionStore, session_id: str, recorded: list[Message] | None = None):
        """``recorded``: the history already in the store (the very objects, when resuming)."""
        self.store = store
        self.session_id = session_id
        self._recorded: list[Message] = list(recorded or [])
        self._epoch = store.get(session_id).epoch
        self._titled = bool(store.get(session_id).title)

    def on_history(self, state: AgentState) -> None:
        history = state.history
        known = len(self._recorded)
        extends = len(history) >= known and all(history[i] is self._recorded[i] for i in range(known))
        if extends:
            if len(history) > known:
                self.store.append_messages(self.session_id, self._epoch, known, history[known:])
        else:
            self._epoch = self.store.replace_history(self.session_id, history)
            self.store.add_event(
                self.session_id, "history_rewritten", {"messages": len(history), "epoch": self._epoch}
            )
        self._recorded = list(history)
        if not self._titled:
            first = first_words(history)  # the person's words: not pasted files, not acode's notes
            if first is not None:
                title = " ".join(first.split())
                self.store.update(self.session_id, title=title[:TITLE_CHARS])
                self._titled = True

    def on_model_step(self, state: AgentState, step: ModelStep) -> None:
        self.store.add_event(self.session_id, "model", step.model_dump(mode="json"))

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None:
        self.store.add_event(self.session_id, "tool", step.model_dump(mode="json"))

    def on_stop(self, state: AgentState, result: AgentResult) -> None:
        self.store.add_event(
            self.session_id,
            "stop",
            {
                "stop_reason": result.stop_reason,
                "message": result.message,
                "answer": result.answer,
                "turns": result.turns,
                "seconds": result.seconds,
            },
        )
        self.store.add_usage(
            self.session_id,
            turns=result.turns,
            prompt_tokens=result.tokens.prompt_tokens,
            completion_tokens=result.tokens.completion_tokens,
        )
        self.store.update(self.session_id, status=result.stop_reason, approval_mode=state.approval_mode)
