"""A history that can be sent to the model again: every tool call of the last assistant message has a
result. A stop (Ctrl-C, a limit, a middleware's stop) in the middle of a turn, or a session killed while
a tool ran, leaves calls without one; each gets a result saying so."""

from __future__ import annotations

import json

from acode.agent.loop.result import ToolStep
from acode.llm.types import Message

CANCELLED = json.dumps({"error": "cancelled: the user interrupted this call before it finished"})


def close_open_tool_calls(history: list[Message], content: str = CANCELLED) -> list[Message]:
    """Append a result for each tool call of the last assistant message that has none; returns them."""
    for index in range(len(history) - 1, -1, -1):
        message = history[index]
        if message.role == "assistant" and message.tool_calls:
            answered = {m.tool_call_id for m in history[index + 1 :] if m.role == "tool"}
            added = [Message.tool(c, content) for c in message.tool_calls if c.id not in answered]
            history.extend(added)
            return added
        if message.role == "user":
            return []
    return []


def cancel_open_calls(history: list[Message], turn: int) -> list[ToolStep]:
    """Close the open tool calls (``close_open_tool_calls``): the trajectory's steps for them."""
    return [
        ToolStep(
            turn=turn,
            call_id=message.tool_call_id or "",
            name=message.name or "",
            arguments={},
            decision="cancelled",
            ok=False,
            output=message.content,
            error="cancelled",
        )
        for message in close_open_tool_calls(history)
    ]
