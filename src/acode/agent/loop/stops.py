"""Control flow that must leave the agent loop. Each exception carries a machine-readable ``reason``
(which becomes ``AgentResult.stop_reason``), a message for people, and the partial answer if any.

The loop raises these itself (limits, Ctrl-C) and middlewares may raise them from any hook (for
example ``LoopDetected`` from loop detection, or a plain ``AgentStop`` when a hook says stop). The loop
catches every ``AgentStop``, records it in the session and returns an ``AgentResult``; the session is
kept, so it can be resumed.
"""

from __future__ import annotations

from typing import Any


class AgentStop(Exception):
    """Leave the loop now. ``reason`` is a short stable word; ``partial`` is any answer so far."""

    reason = "stopped"

    def __init__(self, message: str, *, partial: str = "", reason: str | None = None, **details: Any):
        super().__init__(message)
        self.message = message
        self.partial = partial
        if reason is not None:
            self.reason = reason
        self.details: dict[str, Any] = details


class TurnLimitReached(AgentStop):
    reason = "max_turns"

    def __init__(self, turns: int, *, partial: str = ""):
        super().__init__(
            f"stopped after {turns} turns (agent.max_turns); the task may be unfinished",
            partial=partial,
            turns=turns,
        )
        self.turns = turns


class TimeLimitReached(AgentStop):
    reason = "timeout"

    def __init__(self, seconds: float, limit: float, *, partial: str = ""):
        super().__init__(
            f"stopped after {seconds:.0f} s (agent.max_seconds = {limit:.0f}); the task may be unfinished",
            partial=partial,
            seconds=seconds,
            limit=limit,
        )
        self.seconds = seconds
        self.limit = limit


class FormatErrorLimitReached(AgentStop):
    reason = "format_errors"

    def __init__(self, errors: list[str], *, partial: str = ""):
        last = errors[-1] if errors else ""
        super().__init__(
            f"stopped after {len(errors)} invalid answers in a row (agent.max_format_errors); last: {last}",
            partial=partial,
            errors=errors,
        )
        self.errors = errors


class UserInterrupted(AgentStop):
    reason = "interrupted"

    def __init__(self, during: str, *, partial: str = ""):
        super().__init__(f"cancelled by the user during {during}", partial=partial, during=during)
        self.during = during


class LoopDetected(AgentStop):
    """Raised by loop detection when a nudge did not help. ``kind``: tool_calls | text | model_check."""

    reason = "loop_detected"

    def __init__(self, kind: str, detail: str, *, partial: str = ""):
        super().__init__(
            f"stopped: the agent is repeating itself ({kind}): {detail}", partial=partial, kind=kind
        )
        self.kind = kind
        self.detail = detail
