"""Settings of MCP (Model Context Protocol) servers: started over stdio (``command``) or reached over
HTTP (``url``: streamable HTTP, or SSE for older servers)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from pydantic.alias_generators import to_camel


class McpServerSettings(BaseModel):
    """One MCP server. Keys may be snake_case (config.yml) or camelCase (extension manifests)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True)

    command: str | None = Field(None, description="stdio: the program to start")
    args: list[str] = Field(default_factory=list, description="stdio: the program's arguments")
    env: dict[str, str] = Field(default_factory=dict, description="stdio: variables added to its environment")
    cwd: str | None = Field(None, description="stdio: the folder it starts in")
    url: str | None = Field(None, description="HTTP: the server's endpoint, e.g. http://127.0.0.1:8000/mcp")
    http_url: str | None = Field(None, description="Gemini CLI's name for a streamable HTTP url (httpUrl)")
    transport: Literal["auto", "stdio", "http", "sse"] = Field(
        "auto",
        description="auto: stdio with a command; with a url, sse when its path ends in /sse, else http",
    )
    headers: dict[str, str] = Field(
        default_factory=dict,
        description="HTTP headers sent with every request; ${VAR} takes an environment variable",
    )
    timeout_seconds: float = Field(30.0, gt=0, description="startup and per-call timeout")
    read_only_tools: list[str] = Field(
        default_factory=list,
        description="tools to treat as read-only (no approval) besides those the server marks so",
    )
    enabled: bool = Field(True, description="false: the server is not started")

    @model_validator(mode="after")
    def _one_way_to_reach_it(self) -> McpServerSettings:
        if self.http_url and not self.url:
            self.url = self.http_url
            if self.transport == "auto":
                self.transport = "http"
        if bool(self.command) == bool(self.url):
            raise ValueError(
                "give either `command` (a stdio server) or `url` (an HTTP server), not both or neither"
            )
        if self.transport == "auto":
            if self.command:
                self.transport = "stdio"
            else:
                path = (self.url or "").split("?", 1)[0].rstrip("/")
                self.transport = "sse" if path.endswith("/sse") else "http"
        if (self.transport == "stdio") != bool(self.command):
            raise ValueError(
                f"transport '{self.transport}' does not fit {'command' if self.command else 'url'}"
            )
        return self
