"""The one contract every backend fulfils. Callers never branch on the backend."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

from acode.llm.types import Completion, InstructionsAt, Message, ToolSpec


@runtime_checkable
class ChatModel(Protocol):
    name: str
    context_window: int

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        timeout: float | None = None,
        on_text: Callable[[str], None] | None = None,
        logprobs: int | None = None,
        instructions_at: InstructionsAt = "system",
        stop: Sequence[str] | None = None,
    ) -> Completion:
        """One model call.

        tools: the model may answer with at most one tool call (Completion.tool_calls) or plain text.
        schema: the answer's text is JSON matching this JSON schema (constrained where the backend can).
            Given with ``tools``, the tools are still explained (the prompt is unchanged) but the answer
            is held to ``schema`` (the agent loop's answer-only call: ``{"answer": "..."}``).
        on_text: called with each streamed piece of plain-text output.
        logprobs: when set, Completion.logprobs holds each generated token with its top-N alternatives.
        instructions_at: where the explanation of ``tools`` or ``schema`` goes: "system" (the system
            message) or "end" (the end of the last user message, so calls over the same messages with
            other schemas or none share their whole prefix, and a prompt cache can reuse it).
        stop: generation ends where the text first contains one of these strings; the text is returned
            without it (as OpenAI's ``stop``), finish_reason "stop".
        """
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` by the model's own tokenizer (an estimate where the backend has none)."""
        ...
