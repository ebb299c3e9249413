"""How acode.mcp_client reaches one MCP server, through the official ``mcp`` SDK (imported lazily):
stdio (a started process), streamable HTTP, or SSE (older servers). Each returns the SDK's async context
manager yielding ``(read_stream, write_stream)``; HTTP URLs pass the local-only check first."""

from __future__ import annotations

import os
import string
from contextlib import AsyncExitStack, asynccontextmanager
from typing import IO, Any

from acode.config.mcp import McpServerSettings


def expand_headers(headers: dict[str, str]) -> dict[str, str]:
    """``${VAR}`` / ``$VAR`` in header values come from the environment (keys stay out of config files)."""
    return {name: string.Template(value).safe_substitute(os.environ) for name, value in headers.items()}


def describe(settings: McpServerSettings) -> str:
    if settings.transport == "stdio":
        return " ".join([settings.command or "", *settings.args]).strip()
    return f"{settings.transport} {settings.url}"


@asynccontextmanager
async def open_transport(settings: McpServerSettings, *, cwd: str | None, errlog: IO[str]):
    timeout = settings.timeout_seconds
    if settings.transport == "stdio":
        from mcp import StdioServerParameters, stdio_client

        params = StdioServerParameters(
            command=settings.command, args=settings.args, env=settings.env or None, cwd=cwd
        )
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams[0], streams[1]
        return
    headers = expand_headers(settings.headers)
    if settings.transport == "sse":
        from mcp.client.sse import sse_client

        async with sse_client(
            settings.url, headers=headers or None, timeout=timeout, sse_read_timeout=max(timeout, 60.0)
        ) as streams:
            yield streams[0], streams[1]
        return
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with AsyncExitStack() as stack:
        client: Any = await stack.enter_async_context(
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(timeout, read=max(timeout, 60.0)))
        )
        streams = await stack.enter_async_context(streamable_http_client(settings.url, http_client=client))
        yield streams[0], streams[1]
