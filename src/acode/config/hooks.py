"""Settings of user hooks: shell commands run at agent events (BeforeTool, AfterTool, ...)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

HookEvent = Literal[
    "BeforeTool",
    "AfterTool",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "SessionStart",
    "SessionEnd",
    "PreCompress",
]


def nested_hook_entries(entries: Any) -> Any:
    """One event's hooks in the nested shape Gemini CLI documents (``[{matcher, hooks: [{command}]}]``).
    The flat shape people write from memory, ``SessionStart: [{command: "echo hi"}]`` (a ``matcher`` of its
    own allowed), or one such mapping without the list, means the same hook. Anything else is left as it
    is for validation to report."""
    if isinstance(entries, dict):
        entries = [entries]
    if not isinstance(entries, list):
        return entries
    nested = []
    for entry in entries:
        if isinstance(entry, dict) and "command" in entry and "hooks" not in entry:
            command = {key: value for key, value in entry.items() if key != "matcher"}
            entry = {"matcher": entry.get("matcher", ""), "hooks": [command]}
        nested.append(entry)
    return nested


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["command"] = Field("command", description="the only kind: a shell command")
    command: str = Field(min_length=1, description="run by the shell in the project root; JSON on stdin")
    timeout: float = Field(60.0, gt=0, description="seconds before the hook is killed (the session goes on)")
    name: str = Field("", description="its label in messages (default: the start of the command)")


class HookMatcher(BaseModel):
    model_config = ConfigDict(extra="forbid")

    matcher: str = Field("", description="regular expression on the tool name; empty matches everything")
    hooks: list[HookCommand] = Field(default_factory=list)

    @field_validator("matcher")
    @classmethod
    def _valid_regex(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"matcher {value!r} is not a valid regular expression: {exc}") from None
        return value


class HooksSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    enabled: bool = Field(True, description="false: no hook runs")
    BeforeTool: list[HookMatcher] = Field(default_factory=list)
    AfterTool: list[HookMatcher] = Field(default_factory=list)
    BeforeAgent: list[HookMatcher] = Field(default_factory=list)
    AfterAgent: list[HookMatcher] = Field(default_factory=list)
    BeforeModel: list[HookMatcher] = Field(default_factory=list)
    AfterModel: list[HookMatcher] = Field(default_factory=list)
    SessionStart: list[HookMatcher] = Field(default_factory=list)
    SessionEnd: list[HookMatcher] = Field(default_factory=list)
    PreCompress: list[HookMatcher] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _nested(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        events = HookEvent.__args__  # type: ignore[attr-defined]
        return {key: nested_hook_entries(value) if key in events else value for key, value in data.items()}

    def for_event(self, event: HookEvent) -> list[HookMatcher]:
        return list(getattr(self, event)) if self.enabled else []

    def any_configured(self) -> bool:
        return self.enabled and any(self.for_event(e) for e in HookEvent.__args__)  # type: ignore[attr-defined]
