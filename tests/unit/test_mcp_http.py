"""MCP over HTTP with real servers on 127.0.0.1 (the SDK's MCPServer, streamable HTTP and SSE): tools
are listed and called, also from the agent; headers reach the server; a stuck or dying server gives an
ACODE error, not a hang; a public URL is never contacted."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import yaml
from tests.helpers.agent_cli import run_cli, write_script

from acode.config.mcp import McpServerSettings
from acode.llm.types import ToolCall
from acode.mcp_client import McpManager
from acode.tools.base import ToolContext, ToolRegistry

SERVER = textwrap.dedent('''
    import os, sys, time
    from mcp.server.mcpserver import MCPServer, Context
    from mcp.types import ToolAnnotations

    server = MCPServer("demo")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def team(ctx: Context) -> str:
        """The X-Team header of the request."""
        request = ctx.request_context.request
        return request.headers.get("x-team", "none") if request is not None else "no request"

    @server.tool()
    def sleepy(seconds: float) -> str:
        """Sleep, then answer."""
        time.sleep(seconds)
        return "awake"

    @server.tool()
    def die() -> str:
        """Stop the server in the middle of the call."""
        os._exit(3)

    if __name__ == "__main__":
        transport, port = sys.argv[1], int(sys.argv[2])
        server.run(transport, host="127.0.0.1", port=port)
''')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(tmp_path, transport: str):
    script = tmp_path / "demo_http_server.py"
    script.write_text(SERVER)
    port = free_port()
    proc = subprocess.Popen([sys.executable, str(script), transport, str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return proc, port
        except OSError:
            if proc.poll() is not None:
                raise AssertionError("the MCP server exited at start") from None
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the MCP server did not listen in time")


@pytest.fixture
def http_server(tmp_path):
    proc, port = start_server(tmp_path, "streamable-http")
    yield proc, f"http://127.0.0.1:{port}/mcp"
    proc.kill()
    proc.wait()


def call(registry, ctx, name, **arguments):
    return registry.dispatch(ToolCall(name=name, arguments=arguments), ctx)


def test_streamable_http_tools_headers_timeout_and_a_dying_server(http_server, tmp_path, monkeypatch):
    proc, url = http_server
    monkeypatch.setenv("TEAM_NAME", "blue")
    settings = McpServerSettings(url=url, headers={"X-Team": "${TEAM_NAME}"}, timeout_seconds=2)
    assert settings.transport == "http"
    ctx = ToolContext(workspace=tmp_path)
    with McpManager() as manager:
        tools = manager.start({"demo": settings})
        assert manager.problems == []
        registry = ToolRegistry(tools)
        assert {t.name: t.kind for t in tools}["mcp_demo_add"] == "read"
        assert call(registry, ctx, "mcp_demo_add", a=2, b=3).output == "5"
        assert call(registry, ctx, "mcp_demo_team").output == "blue"
        started = time.monotonic()
        stuck = call(registry, ctx, "mcp_demo_sleepy", seconds=30)
        assert "ACODE-MCP-00" in (stuck.error or "") and time.monotonic() - started < 15
        dying = call(registry, ctx, "mcp_demo_die")
        assert dying.error and "ACODE-MCP-00" in dying.error and time.monotonic() - started < 30
        assert proc.wait(timeout=5) == 3
        after = call(registry, ctx, "mcp_demo_add", a=1, b=1)
        assert after.error and "ACODE-MCP-00" in after.error


def test_sse_server(tmp_path):
    proc, port = start_server(tmp_path, "sse")
    try:
        settings = McpServerSettings(url=f"http://127.0.0.1:{port}/sse")
        assert settings.transport == "sse"
        with McpManager() as manager:
            registry = ToolRegistry(manager.start({"old": settings}))
            assert manager.problems == []
            assert call(registry, ToolContext(workspace=tmp_path), "mcp_old_add", a=20, b=22).output == "42"
    finally:
        proc.kill()
        proc.wait()


def test_a_public_url_is_not_contacted_and_a_dead_port_is_reported(tmp_path):
    with McpManager() as manager:
        tools = manager.start({
            "hosted": McpServerSettings(url="http://8.8.8.8/mcp"),
            "gone": McpServerSettings(url=f"http://127.0.0.1:{free_port()}/mcp", timeout_seconds=5),
        })
    assert tools == []
    hosted, gone = manager.problems
    assert "was not contacted: [ACODE-NET-001]" in hosted and "model.allowed_hosts" in hosted
    assert gone.startswith("MCP server 'gone' (http http://127.0.0.1:") and "did not start" in gone


def test_settings_need_exactly_one_way_to_reach_the_server():
    with pytest.raises(ValueError):
        McpServerSettings()
    with pytest.raises(ValueError):
        McpServerSettings(command="x", url="http://127.0.0.1/mcp")
    assert McpServerSettings.model_validate({"httpUrl": "http://127.0.0.1:9/mcp"}).transport == "http"


def test_the_agent_calls_a_tool_of_an_http_server(http_server, git_repo):
    _, url = http_server
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "config.yml").write_text(yaml.safe_dump({"mcp_servers": {"demo": {"url": url}}}))
    add = {"tool": "mcp_demo_add", "arguments": {"a": 40, "b": 2}}
    script = write_script(git_repo, [add, "The sum is 42."])
    out = run_cli(
        git_repo, script, "-p", "add 40 and 2 with the demo server", "--json", "--trust"
    )  # project MCP
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    tool = next(s for s in data["trajectory"] if s["type"] == "tool")
    assert tool["name"] == "mcp_demo_add" and tool["decision"] == "allowed" and tool["output"] == "42"


def test_slash_mcp_shows_the_http_server_and_its_tools(http_server, git_repo):
    import pexpect
    from tests.helpers.agent_cli import PROMPT, spawn_chat

    _, url = http_server
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "config.yml").write_text(yaml.safe_dump({"mcp_servers": {"demo": {"url": url}}}))
    trusted = subprocess.run(
        [sys.executable, "-m", "acode", "trust", str(git_repo)], capture_output=True, text=True, check=False
    )  # a project's own MCP servers start only in a trusted folder
    assert trusted.returncode == 0, trusted.stderr
    child = spawn_chat(git_repo, write_script(git_repo, ["unused"]))
    child.sendline("/mcp")
    child.expect(r"connected\S* \S*demo\S* \(http: " + url.replace(".", "\\.") + r"\) - 4 tool\(s\)")
    child.expect(r"mcp_demo_add\s+\S*\(read\)")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
