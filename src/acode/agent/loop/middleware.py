"""Extension points of the agent loop. Loop detection, compression, hooks, the next-speaker check,
checkpoints and plan mode are middlewares: the loop calls each hook in order and stays small.

A hook returns None to change nothing. Control flow that must leave the loop raises an
``AgentStop`` subclass (see acode.agent.loop.stops) carrying what the caller needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acode.llm.types import Completion, Message, ToolCall
from acode.tools.base import ToolResult


@dataclass
class AgentState:
    """Everything a middleware may read or change about the running session."""

    session_id: str
    workspace: Path
    history: list[Message]
    approval_mode: str
    interactive: bool = False
    turn: int = 0
    approved_plan: Path | None = None
    # whether the coming model call is sent the history: a solver's call (acode.agent.loop.solver_door)
    # sends its own prompt, so there is nothing for compression to shorten before it
    sends_history: bool = True
    scratch: dict[str, Any] = field(default_factory=dict)  # per-middleware state, keyed by its name


@dataclass
class ToolDecision:
    """What a middleware says about a tool call before it runs."""

    action: Literal["allow", "deny", "ask"] = "allow"
    reason: str = ""  # for people and the model
    rewritten_arguments: dict[str, Any] | None = None
    model_note: str = ""  # after a denial's reason, for the model alone (acode.audience)


class Middleware:
    """Base class with no-op hooks; override only what you need."""

    name = "middleware"

    def on_session_start(self, state: AgentState) -> None:
        return None

    def on_user_prompt(self, state: AgentState, prompt: str) -> str | None:
        """A user prompt arrives (before it joins the history); may return a replacement (e.g. with
        added context) or raise AgentStop to refuse it."""
        return None

    def before_model(self, state: AgentState) -> None:
        """May rewrite ``state.history`` (compression) or append a message (a nudge)."""
        return

    def after_model(self, state: AgentState, completion: Completion) -> Completion | None:
        """May replace the completion or raise AgentStop (a detected loop)."""
        return None

    def before_tool(self, state: AgentState, call: ToolCall) -> ToolDecision | None:
        return None

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> ToolResult | None:
        return None

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        """Return a user message (e.g. "Please continue.") to keep the loop going, else None."""
        return None

    def on_session_end(self, state: AgentState, reason: str) -> None:
        return None
