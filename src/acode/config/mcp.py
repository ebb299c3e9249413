"""Settings of MCP (Model Context Protocol) servers started over stdio."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class McpServerSettings(BaseModel):
    """One stdio MCP server. Keys may be snake_case (config.yml) or camelCase (extension manifests)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    command: str
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    timeout_seconds: float = Field(30.0, gt=0, description="startup and per-call timeout")
    read_only_tools: list[str] = Field(
        default_factory=list, description="tools to treat as read-only (no approval) besides those the server marks so"
    )
    enabled: bool = True
