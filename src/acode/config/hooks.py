"""Settings of user hooks: shell commands run at agent events (BeforeTool, AfterTool, ...)."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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


class HookCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    type: Literal["command"] = "command"
    command: str = Field(min_length=1, description="run by the shell in the project root; JSON on stdin")
    timeout: float = Field(60.0, gt=0, description="seconds before the hook is killed (the session goes on)")
    name: str = ""


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

    enabled: bool = True
    BeforeTool: list[HookMatcher] = Field(default_factory=list)
    AfterTool: list[HookMatcher] = Field(default_factory=list)
    BeforeAgent: list[HookMatcher] = Field(default_factory=list)
    AfterAgent: list[HookMatcher] = Field(default_factory=list)
    BeforeModel: list[HookMatcher] = Field(default_factory=list)
    AfterModel: list[HookMatcher] = Field(default_factory=list)
    SessionStart: list[HookMatcher] = Field(default_factory=list)
    SessionEnd: list[HookMatcher] = Field(default_factory=list)
    PreCompress: list[HookMatcher] = Field(default_factory=list)

    def for_event(self, event: HookEvent) -> list[HookMatcher]:
        return list(getattr(self, event)) if self.enabled else []

    def any_configured(self) -> bool:
        return self.enabled and any(self.for_event(e) for e in HookEvent.__args__)  # type: ignore[attr-defined]
