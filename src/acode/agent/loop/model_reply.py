"""What a model's reply means to the loop: a plain answer, tool calls, or a format problem to show the
model. Backends that do not return tool calls natively leave them in the text as JSON, a fenced block or
a ``<tool_call>`` envelope (acode.llm.structured parses those)."""

from __future__ import annotations

from acode.llm.structured import parse_tool_text
from acode.llm.types import Completion, ToolCall
from acode.tools.base import ToolRegistry


def interpret(completion: Completion, registry: ToolRegistry) -> tuple[str, list[ToolCall], str | None]:
    """(answer text, tool calls, format problem). Parses envelopes a backend left in the text."""
    if completion.tool_calls:
        return completion.text, list(completion.tool_calls), None
    text = completion.text.strip()
    if not text:
        return "", [], "empty answer: reply with one tool call, or a plain-text answer when done"
    if text.startswith(("{", "```")) or "<tool_call>" in text:
        answer, calls = parse_tool_text(text, registry.names())
        if calls:
            return "", calls, None
        if answer != text:
            return answer, [], None
        if text.startswith("{"):
            cut = " (it was cut off at max_tokens)" if completion.finish_reason == "length" else ""
            return "", [], f"your answer was not a valid tool call{cut}: reply with one tool call as JSON"
    return completion.text, [], None
