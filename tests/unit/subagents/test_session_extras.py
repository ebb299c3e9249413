"""attach_extras: extension exclusions and context, MCP tools from an extension, reviewer, invoke_agent."""

from __future__ import annotations

import json
import sys
import textwrap

from acode.agent.extras import attach_extras
from acode.agent.subagent import InvokeAgent
from acode.config.settings import Settings
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


def test_extras_wire_extensions_mcp_reviewer_and_subagents(tmp_path):
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
    extras = attach_extras(registry, ScriptedModel([]), Settings(), root)
    try:
        names = registry.names()
        assert "run_shell_command" not in names
        assert {"mcp_kb_search", "reviewer", "invoke_agent"} <= set(names)
        assert extras.system_sections() == ["# Extension kb (KB.md)\nUse the knowledge base first."]
        assert len(extras.problems) == 1 and "'dead'" in extras.problems[0]
        out = registry.dispatch(ToolCall(name="mcp_kb_search", arguments={"query": "x"}), ToolContext(workspace=root))
        assert out.output == "kb: x"
        invoke = registry.get("invoke_agent")
        assert isinstance(invoke, InvokeAgent)
        assert "invoke_agent" not in invoke.runner.base_registry
        assert "mcp_kb_search" in invoke.runner.base_registry  # sub-agents may use MCP tools too
    finally:
        extras.close()
    none = default_registry()
    attach_extras(none, ScriptedModel([]), Settings(), root, ["none"]).close()
    assert "run_shell_command" in none.names() and "mcp_kb_search" not in none.names()
