"""The tools a session gets beyond the built-in ones, in one call:

    added = add_tools(registry, model, settings, workspace, extensions)
    ... at the end: added.close()

- the enabled extensions' ``excludeTools`` are removed from the registry;
- tools of MCP servers (config ``mcp_servers`` plus extensions' ``mcpServers``) are added; a server
  that fails to start is reported in ``problems`` and the session goes on;
- the ``reviewer`` tool and ``invoke_agent`` (with every known agent) are added. Sub-agents get a
  snapshot of the registry taken before ``invoke_agent`` is added, so they cannot invoke agents.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from acode.agent.approval.policy import Approver
from acode.config.settings import Settings
from acode.extensions.manifest import Extension
from acode.llm.protocol import ChatModel
from acode.tools.base import ToolRegistry

if TYPE_CHECKING:
    from acode.agent.subagents.definitions import AgentDefinition
    from acode.mcp_client import McpManager

log = logging.getLogger("acode.agent")


@dataclass
class AddedTools:
    mcp: McpManager | None = None  # when any server is configured
    problems: list[str] = field(default_factory=list)
    agents: dict[str, AgentDefinition] = field(default_factory=dict)

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()
            self.mcp = None


def _extensions_that_may_run(
    settings: Settings, extensions: Sequence[Extension], added: AddedTools
) -> list[Extension]:
    """The enabled extensions whose MCP servers may start: a project's own extensions only in a trusted
    folder (config.trust); user extensions always."""
    if settings.trust.trusted:
        return list(extensions)
    held = [e for e in extensions if e.scope == "project" and e.manifest.mcp_servers]
    for ext in held:
        added.problems.append(
            f"extension {ext.name}: its MCP servers ({', '.join(ext.manifest.mcp_servers)}) were not started "
            "because this folder is not trusted (`acode trust` trusts it)"
        )
    return [e for e in extensions if e not in held]


def add_tools(
    registry: ToolRegistry,
    model: ChatModel,
    settings: Settings,
    workspace: Path,
    extensions: Sequence[Extension] = (),
    *,
    approval_mode: str = "default",
    approver: Approver | None = None,
    interactive: bool = False,
    reviewer: bool = True,
    subagents: bool = True,
    problems: list[str] | None = None,
) -> AddedTools:
    """``problems``: what went wrong before (e.g. an invalid extension manifest), reported here too."""
    from acode.agent.approval.policy import ApprovalPolicy
    from acode.agent.loop.agent_loop import LoopConfig
    from acode.agent.subagents.definitions import load_agents
    from acode.agent.subagents.reviewer_tool import ReviewerTool
    from acode.agent.subagents.runner import InvokeAgent, SubagentRunner
    from acode.extensions.loader import excluded_tools
    from acode.mcp_client import McpManager, servers_for

    added = AddedTools(problems=list(problems or []))
    excluded = excluded_tools(extensions)
    servers = servers_for(settings.mcp_servers, _extensions_that_may_run(settings, extensions, added))
    if servers:
        added.mcp = McpManager()
        for tool in added.mcp.start(servers, cwd=workspace, allowed_hosts=settings.model.allowed_hosts):
            registry.register(tool)
        added.problems.extend(added.mcp.problems)
    if reviewer:
        registry.register(ReviewerTool(model))
    for name in excluded:
        registry.unregister(name)
    if subagents:
        added.agents = load_agents(workspace, extensions, problems=added.problems)
        runner = SubagentRunner(
            model,
            ToolRegistry(list(registry)),
            loop_config=LoopConfig.from_settings(settings),
            policy=ApprovalPolicy(settings.agent.rules, approver=approver),
            approval_mode=approval_mode,
            interactive=interactive,
        )
        if "invoke_agent" not in excluded:
            registry.register(InvokeAgent(runner, added.agents))
    for problem in added.problems:
        log.warning("%s", problem)
    return added
