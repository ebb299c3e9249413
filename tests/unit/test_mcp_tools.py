"""MCP: a small stdio server written here (MCPServer from the SDK), started by the test; its tools
appear as mcp_<server>_<tool> with the right approval kind; a server that fails is reported."""

from __future__ import annotations

import sys
import textwrap

import pytest

from acode.config.mcp import McpServerSettings
from acode.llm.types import ToolCall
from acode.mcp_client import McpManager, servers_for
from acode.tools.base import ToolContext, ToolRegistry

SERVER = textwrap.dedent(
    '''
    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("demo")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def add(a: int, b: int) -> str:
        """Add two integers."""
        return str(a + b)

    @server.tool()
    def shout(text: str) -> str:
        """Upper-case the text."""
        if text == "boom":
            raise ToolError("cannot shout boom")
        return text.upper()

    @server.tool()
    def lookup(key: str) -> str:
        """Look a key up."""
        return {"x": "found x"}.get(key, "missing")

    if __name__ == "__main__":
        server.run()
    '''
)


@pytest.fixture
def server_file(tmp_path):
    path = tmp_path / "demo_server.py"
    path.write_text(SERVER)
    return path


def test_mcp_tools_are_registered_and_called(server_file, tmp_path):
    servers = {
        "demo": McpServerSettings(
            command=sys.executable, args=[str(server_file)], read_only_tools=["lookup"]
        ),
        "broken": McpServerSettings(
            command=sys.executable, args=["-c", "import sys; sys.exit('no luck')"], timeout_seconds=10
        ),
    }
    with McpManager() as manager:
        tools = manager.start(servers, cwd=tmp_path)
        assert sorted(t.name for t in tools) == ["mcp_demo_add", "mcp_demo_lookup", "mcp_demo_shout"]
        kinds = {t.name: t.kind for t in tools}
        assert kinds == {"mcp_demo_add": "read", "mcp_demo_lookup": "read", "mcp_demo_shout": "execute"}
        assert len(manager.problems) == 1 and "MCP server 'broken'" in manager.problems[0]
        assert "no luck" in manager.problems[0]  # the server's stderr explains why

        registry = ToolRegistry(tools)
        spec = {s.name: s for s in registry.specs()}["mcp_demo_add"]
        assert spec.parameters["required"] == ["a", "b"] and "Add two integers" in spec.description
        ctx = ToolContext(workspace=tmp_path)
        assert (
            registry.dispatch(ToolCall(name="mcp_demo_add", arguments={"a": 2, "b": 40}), ctx).output == "42"
        )
        assert (
            registry.dispatch(ToolCall(name="mcp_demo_lookup", arguments={"key": "x"}), ctx).output
            == "found x"
        )
        failed = registry.dispatch(ToolCall(name="mcp_demo_shout", arguments={"text": "boom"}), ctx)
        assert failed.error and "cannot shout boom" in failed.error
        bad_args = registry.dispatch(ToolCall(name="mcp_demo_add", arguments={"a": "x"}), ctx)
        assert bad_args.error
    assert manager.connections == []


def test_extension_servers_merge_with_config_servers():
    from pathlib import Path

    from acode.extensions.manifest import Extension, ExtensionManifest

    ext = Extension(
        manifest=ExtensionManifest.model_validate(
            {"name": "e", "mcpServers": {"a": {"command": "x"}, "b": {"command": "ext-b"}}}
        ),
        manifest_path=Path("/tmp/e.json"),
        scope="project",
    )
    merged = servers_for({"b": McpServerSettings(command="config-b")}, [ext])
    assert merged["a"].command == "x" and merged["b"].command == "config-b"
