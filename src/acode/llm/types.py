"""The normalised data every backend speaks: messages in, one Completion out."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant", "tool"]

# Where a call's tools or schema are explained to the model: in the system message (the agent's prompts,
# calibrated on it), or at the end of the last user message ("end"), after everything the call shares with
# calls that have another schema or none, so the KV cache (or a server's prompt cache) reuses all of it.
InstructionsAt = Literal["system", "end"]


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:12]


class ToolCall(BaseModel):
    id: str = Field(default_factory=new_call_id)
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    def envelope(self) -> str:
        """The call as the JSON envelope a constrained model emits (``{"tool": ..., "arguments": ...}``)."""
        return json.dumps({"tool": self.name, "arguments": self.arguments}, ensure_ascii=False)


def call_key(name: str, arguments: dict[str, Any]) -> str:
    """What makes two tool calls the same call: the tool and its arguments, in any key order."""
    canonical = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(f"{name}\x00{canonical}".encode()).hexdigest()[:16]


class Message(BaseModel):
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None  # tool name, on role="tool" messages
    # A user message a person did not type as it stands: what a person sees in its place (the command
    # they typed: "!git log", "/test"), or "" for acode's own message to the model (a reminder, a
    # nudge). Never sent to the model. See acode.audience.
    shown: str | None = None

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role="system", content=content)

    @classmethod
    def user(cls, content: str, *, shown: str | None = None) -> Message:
        return cls(role="user", content=content, shown=shown)

    @classmethod
    def internal(cls, content: str) -> Message:
        """acode's own message to the model in the user's turn: no person sees it as theirs."""
        return cls(role="user", content=content, shown="")

    @classmethod
    def assistant(cls, content: str = "", tool_calls: list[ToolCall] | None = None) -> Message:
        return cls(role="assistant", content=content, tool_calls=tool_calls or [])

    @classmethod
    def tool(cls, call: ToolCall, content: str) -> Message:
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)


class ToolSpec(BaseModel):
    """What the model is told about a tool: its name, what it does, and a JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]


def without_titles(schema: dict[str, Any], *, nested: bool = False) -> dict[str, Any]:
    """A JSON schema without pydantic's "title" (it repeats the name, and every schema token is prefilled
    on every call of a local model): the schema's own, or with ``nested`` every property's too."""
    if not nested:
        return {k: v for k, v in schema.items() if k != "title"}

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return strip(schema)


class Usage(BaseModel):
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int = 0  # actually run through the model
    prompt_tokens_reused: int = 0  # served from the KV cache (shared prefix with an earlier call)
    completion_tokens: int = 0
    seconds: float = 0.0


class TokenLogprob(BaseModel):
    token: str
    logprob: float
    top: dict[str, float] = Field(default_factory=dict)  # alternatives at this position


class Completion(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    finish_reason: str = "stop"  # stop | length | tool_calls | error
    model: str = ""
    logprobs: list[TokenLogprob] | None = None

    def as_message(self) -> Message:
        return Message.assistant(self.text, list(self.tool_calls))


def cut_at_stop(text: str, stop: Iterable[str] | None) -> str | None:
    """``text`` up to the earliest of the stop strings it contains, or None when it contains none."""
    found = [i for s in (stop or ()) if s and (i := text.find(s)) >= 0]
    return text[: min(found)] if found else None
