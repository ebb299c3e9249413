"""What extensions, MCP servers, sub-agents and the reviewer add to an agent session, in one call:

    extras = attach_extras(registry, model, settings, workspace, selection=["docs"])
    ... system prompt gets extras.system_sections(); at the end: extras.close()

- enabled extensions' ``excludeTools`` are removed from the registry and their context files become
  system prompt sections;
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
from typing import Any

from acode.tools.base import ToolRegistry

log = logging.getLogger("acode.agent")


@dataclass
class SessionExtras:
    extensions: list[Any] = field(default_factory=list)
    mcp: Any = None  # McpManager when any server is configured
    problems: list[str] = field(default_factory=list)
    agents: dict[str, Any] = field(default_factory=dict)

    def system_sections(self) -> list[str]:
        from acode.extensions.loader import extensions_context

        context = extensions_context(self.extensions)
        return [context] if context else []

    def close(self) -> None:
        if self.mcp is not None:
            self.mcp.close()
            self.mcp = None


def _extensions_that_may_run(settings: Any, extras: SessionExtras) -> list[Any]:
    """The enabled extensions whose MCP servers may start: a project's own extensions only in a trusted
    folder (config.trust); user extensions always."""
    trust = getattr(settings, "trust", None)
    if trust is None or trust.trusted:
        return list(extras.extensions)
    held = [e for e in extras.extensions if e.scope == "project" and e.manifest.mcp_servers]
    for ext in held:
        extras.problems.append(
            f"extension {ext.name}: its MCP servers ({', '.join(ext.manifest.mcp_servers)}) were not started "
            "because this folder is not trusted (`acode trust` trusts it)"
        )
    return [e for e in extras.extensions if e not in held]


def attach_extras(
    registry: ToolRegistry,
    model: Any,
    settings: Any,
    workspace: Path,
    selection: Sequence[str] | None = None,
    *,
    approval_mode: str = "default",
    approver: Any = None,
    interactive: bool = False,
    reviewer: bool = True,
    subagents: bool = True,
) -> SessionExtras:
    from acode.agent.approval import ApprovalPolicy
    from acode.agent.definitions import load_agents
    from acode.agent.loop import LoopConfig
    from acode.agent.reviewer_tool import ReviewerTool
    from acode.agent.subagent import InvokeAgent, SubagentRunner
    from acode.extensions.loader import discover_extensions, excluded_tools, select_extensions
    from acode.mcp_client import McpManager, servers_for

    extras = SessionExtras()
    extras.extensions = select_extensions(discover_extensions(workspace, problems=extras.problems), selection)
    excluded = excluded_tools(extras.extensions)
    servers = servers_for(settings.mcp_servers, _extensions_that_may_run(settings, extras))
    if servers:
        extras.mcp = McpManager()
        for tool in extras.mcp.start(servers, cwd=workspace, allowed_hosts=settings.model.allowed_hosts):
            registry.register(tool)
        extras.problems.extend(extras.mcp.problems)
    if reviewer:
        registry.register(ReviewerTool(model))
    for name in excluded:
        registry.unregister(name)
    if subagents:
        extras.agents = load_agents(workspace, extras.extensions, problems=extras.problems)
        runner = SubagentRunner(
            model,
            ToolRegistry(list(registry)),
            loop_config=LoopConfig.from_settings(settings),
            policy=ApprovalPolicy(settings.agent.rules, approver=approver),
            approval_mode=approval_mode,
            interactive=interactive,
        )
        if "invoke_agent" not in excluded:
            registry.register(InvokeAgent(runner, extras.agents))
    for problem in extras.problems:
        log.warning("%s", problem)
    return extras
