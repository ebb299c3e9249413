"""Tools from MCP servers (stdio, streamable HTTP or SSE; see acode.mcp_transports), through the official
``mcp`` SDK (imported lazily).

The SDK is async; each server gets a keeper coroutine on one background event-loop thread that enters
the SDK's context managers, stays inside them until shutdown, and leaves them in the same task (anyio
requires that). Tool calls from the agent's thread are submitted to that loop. Each MCP tool becomes an
``mcp_<server>_<tool>`` Tool: kind ``read`` when the server annotates it read-only or the config lists it
in ``read_only_tools``, else ``execute`` -- so the usual approval rules apply. A server that fails to
start is reported and skipped; the session goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import logging
import re
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

from pydantic import BaseModel, ConfigDict

from acode.config.mcp import McpServerSettings
from acode.llm.types import ToolSpec, without_titles
from acode.tools.base import Tool, ToolContext, ToolError, ToolResult

log = logging.getLogger("acode.mcp")


class _AnyArgs(BaseModel):
    """The server validates its own arguments; the model sees the server's schema via ``spec()``."""

    model_config = ConfigDict(extra="allow")


def tool_name(server: str, tool: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", f"mcp_{server}_{tool}")


class _EventLoopThread:
    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="acode-mcp", daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float | None) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


class McpConnection:
    """One running server: started by ``start()``, its tools in ``tools``, stopped by ``close()``."""

    def __init__(self, name: str, settings: McpServerSettings, runner: _EventLoopThread, cwd: Path | None):
        self.name = name
        self.settings = settings
        self._runner = runner
        self._cwd = settings.cwd or (str(cwd) if cwd else None)
        self._session: Any = None
        self._stop: asyncio.Event | None = None
        self._keeper: Any = None
        # open for the connection's whole life (the server's stderr); closed in close()
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self.tools: list[McpTool] = []

    def start(self) -> None:
        ready: asyncio.Future = self._runner.run(self._make_future(), None)
        self._keeper = asyncio.run_coroutine_threadsafe(self._keep(ready), self._runner.loop)
        try:
            listed = self._runner.run(self._wait_ready(ready), None)
        except Exception as exc:  # noqa: BLE001 - any failure to start is reported with the server's stderr
            root, tail = _leaf(exc), self._stderr_tail()
            self.close()
            raise RuntimeError(f"{type(root).__name__}: {root}{tail}") from None
        self.tools = [McpTool(self, t) for t in listed]

    async def _make_future(self) -> asyncio.Future:
        self._stop = asyncio.Event()
        return asyncio.get_running_loop().create_future()

    async def _wait_ready(self, ready: asyncio.Future) -> Any:
        return await asyncio.wait_for(asyncio.shield(ready), self.settings.timeout_seconds)

    async def _keep(self, ready: asyncio.Future) -> None:
        from mcp import ClientSession

        from acode.mcp_transports import open_transport

        try:
            async with open_transport(self.settings, cwd=self._cwd, errlog=self._errlog) as (read, write), \
                    ClientSession(read, write) as session:
                await session.initialize()
                listed = await session.list_tools()
                self._session = session
                if not ready.done():
                    ready.set_result(listed.tools)
                assert self._stop is not None
                await self._stop.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            if not isinstance(exc, Exception):
                raise
        finally:
            self._session = None

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if self._session is None:
            raise ToolError(
                f"[ACODE-MCP-003] the MCP server '{self.name}' is not running (it stopped or never started)"
            )
        timeout = self.settings.timeout_seconds
        try:
            return self._runner.run(
                self._session.call_tool(tool, arguments, read_timeout_seconds=timeout), timeout + 5
            )
        except (TimeoutError, concurrent.futures.TimeoutError):
            raise ToolError(
                f"[ACODE-MCP-002] the MCP server '{self.name}' did not answer {tool} within {timeout:g} s "
                f"(mcp_servers.{self.name}.timeout_seconds); it may be stuck or gone"
            ) from None

    def close(self) -> None:
        if self._stop is not None:
            self._runner.loop.call_soon_threadsafe(self._stop.set)
        if self._keeper is not None:
            try:
                self._keeper.result(timeout=10)
            except BaseException as exc:  # noqa: BLE001 - shutting down (or stuck starting): stop it the hard way
                self._keeper.cancel()
                log.debug("MCP server %s stopped with %r", self.name, exc)
            self._keeper = None
        self._errlog.close()

    def _stderr_tail(self) -> str:
        try:
            self._errlog.seek(0)
            tail = self._errlog.read()[-600:].strip()
        except (OSError, ValueError):
            return ""
        return f"; server stderr: {tail}" if tail else ""


class McpTool(Tool):
    description = ""
    Args = _AnyArgs

    def __init__(self, connection: McpConnection, remote: Any):
        self.connection = connection
        self.remote_name: str = remote.name
        self.name = tool_name(connection.name, remote.name)  # type: ignore[misc]
        self.description = (remote.description or remote.name).strip()  # type: ignore[misc]
        self.input_schema: dict[str, Any] = dict(remote.input_schema or {"type": "object"})
        hint = getattr(getattr(remote, "annotations", None), "read_only_hint", None)
        read_only = bool(hint) or remote.name in connection.settings.read_only_tools
        self.kind = "read" if read_only else "execute"  # type: ignore[misc]

    def spec(self) -> ToolSpec:
        schema = without_titles(self.input_schema)
        return ToolSpec(
            name=self.name, description=f"[MCP {self.connection.name}] {self.description}", parameters=schema
        )

    def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        arguments = args.model_dump(exclude_unset=True)
        try:
            result = self.connection.call(self.remote_name, arguments)
        except ToolError:
            raise
        except Exception as exc:
            root = _leaf(exc)
            raise ToolError(
                f"[ACODE-MCP-004] MCP call {self.name} failed: {type(root).__name__}: {root}"
            ) from exc
        text = _content_text(result)
        if getattr(result, "is_error", False):
            return ToolResult(error=text or "the MCP tool reported an error")
        return ToolResult(output=text)


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups, which anyio likes to produce."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _content_text(result: Any) -> str:
    parts = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(block.text)
        else:
            parts.append(f"[{kind} content omitted]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False))
    return "\n".join(parts)


class McpManager:
    """Starts every configured server; ``tools`` are the ones that came up, ``problems`` the ones that
    didn't."""

    def __init__(self) -> None:
        self._runner: _EventLoopThread | None = None
        self.connections: list[McpConnection] = []
        self.problems: list[str] = []

    @property
    def tools(self) -> list[McpTool]:
        return [tool for conn in self.connections for tool in conn.tools]

    def start(
        self,
        servers: Mapping[str, McpServerSettings],
        *,
        cwd: Path | None = None,
        allowed_hosts: Sequence[str] = (),
    ) -> list[McpTool]:
        from acode.errors import ConfigError
        from acode.mcp_transports import describe
        from acode.netpolicy import check_url

        for name, settings in servers.items():
            if not settings.enabled:
                continue
            if settings.url:
                try:  # the local-only guarantee covers HTTP MCP servers too
                    check_url(
                        settings.url,
                        allowed_hosts,
                        what=f"MCP server '{name}'",
                        setting=f"mcp_servers.{name}.url",
                    )
                except ConfigError as exc:
                    self.problems.append(
                        f"MCP server '{name}' ({describe(settings)}) was not contacted: [{exc.code}] "
                        f"{exc.message}"
                    )
                    log.warning("%s", self.problems[-1])
                    continue
            if self._runner is None:
                self._runner = _EventLoopThread()
            conn = McpConnection(name, settings, self._runner, cwd)
            try:
                conn.start()
            except Exception as exc:  # noqa: BLE001 - one broken server must not stop the session
                message = f"MCP server '{name}' ({describe(settings)}) did not start: {exc}"
                log.warning("%s", message)
                self.problems.append(message)
                continue
            self.connections.append(conn)
        return self.tools

    def close(self) -> None:
        for conn in self.connections:
            conn.close()
        self.connections = []
        if self._runner is not None:
            self._runner.stop()
            self._runner = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def servers_for(
    settings_servers: Mapping[str, McpServerSettings], extensions: Any = ()
) -> dict[str, McpServerSettings]:
    """Config servers plus those of the enabled extensions (config wins on a name clash)."""
    merged: dict[str, McpServerSettings] = {}
    for ext in extensions:
        merged.update(ext.manifest.mcp_servers)
    merged.update(settings_servers)
    return merged
