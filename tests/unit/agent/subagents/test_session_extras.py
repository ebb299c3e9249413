"""add_tools: extension exclusions and context, MCP tools from an extension, reviewer, invoke_agent."""

from __future__ import annotations

import json
import sys
import textwrap

from acode.agent.session.added_tools import add_tools
from acode.agent.subagents.runner import InvokeAgent
from acode.config.settings import Settings
from acode.extensions.loader import extensions_context, load_enabled_extensions
from acode.llm.scripted import ScriptedModel
from acode.llm.types import ToolCall
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry

SERVER = textwrap.dedent(
    '''
    from mcp.server.mcpserver import MCPServer
    server = MCPServer("kb")

    @server.tool()
    def search(query: str) -> str:
        """Search the knowledge base."""
        return "kb: " + query

    server.run()
    '''
)


def test_added_tools_wire_extensions_mcp_reviewer_and_subagents(tmp_path):
    root = tmp_path / "proj"
    ext = root / ".acode" / "extensions" / "kb"
    ext.mkdir(parents=True)
    (ext / "server.py").write_text(SERVER)
    (ext / "KB.md").write_text("Use the knowledge base first.")
    (ext / "acode-extension.json").write_text(json.dumps({
        "name": "kb", "contextFileName": "KB.md", "excludeTools": ["run_shell_command"],
        "mcpServers": {"kb": {"command": sys.executable, "args": [str(ext / "server.py")]},
                       "dead": {"command": "/no/such/binary"}},
    }))
    registry = default_registry()
    extensions = load_enabled_extensions(root)
    added = add_tools(registry, ScriptedModel([]), Settings(), root, extensions)
    try:
        names = registry.names()
        assert "run_shell_command" not in names
        assert {"mcp_kb_search", "reviewer", "invoke_agent"} <= set(names)
        assert extensions_context(extensions) == "# Extension kb (KB.md)\nUse the knowledge base first."
        assert len(added.problems) == 1 and "'dead'" in added.problems[0]
        out = registry.dispatch(
            ToolCall(name="mcp_kb_search", arguments={"query": "x"}), ToolContext(workspace=root)
        )
        assert out.output == "kb: x"
        invoke = registry.get("invoke_agent")
        assert isinstance(invoke, InvokeAgent)
        assert "invoke_agent" not in invoke.runner.base_registry
        assert "mcp_kb_search" in invoke.runner.base_registry  # sub-agents may use MCP tools too
    finally:
        added.close()
    none = default_registry()
    add_tools(none, ScriptedModel([]), Settings(), root, load_enabled_extensions(root, ["none"])).close()
    assert "run_shell_command" in none.names() and "mcp_kb_search" not in none.names()
