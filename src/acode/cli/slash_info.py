"""``/stats``, ``/mcp`` and ``/tools`` in the chat: what this session has cost, which MCP servers are
connected with their tools, and the tools the model is offered now (with what each would need)."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
from typing import Any

from rich.markup import escape

from acode.cli.slash import ChatContext, register


def session_stats(store: Any, session_id: str) -> dict[str, Any]:
    """Totals of one session from its recorded events (so a resumed session counts its earlier turns)."""
    models = store.events(session_id, "model")
    tools = store.events(session_id, "tool")
    prompt = sum(e["usage"].get("prompt_tokens", 0) for e in models)
    reused = sum(e["usage"].get("prompt_tokens_reused", 0) for e in models)
    output = sum(e["usage"].get("completion_tokens", 0) for e in models)
    model_seconds = sum(e.get("seconds", 0.0) for e in models)
    return {
        "session_id": session_id,
        "model_calls": len(models),
        "input_tokens": prompt,
        "input_tokens_cached": reused,
        "cached_share": round(reused / prompt, 3) if prompt else None,
        "output_tokens": output,
        "model_seconds": round(model_seconds, 2),
        "output_tokens_per_second": round(output / model_seconds, 1) if model_seconds else None,
        "tool_calls": len(tools),
        "tool_calls_failed": sum(1 for e in tools if not e.get("ok")),
        "tool_seconds": round(sum(e.get("seconds", 0.0) for e in tools), 2),
        "tools_used": dict(Counter(e["name"] for e in tools).most_common()),
    }


@register("stats", "This session's tokens in/out, cached prompt share, model time and tool calls")
def stats(chat: ChatContext, args: str) -> None:
    s = session_stats(chat.session.store, chat.session.id)
    share = "-" if s["cached_share"] is None else f"{s['cached_share']:.0%}"
    speed = "-" if s["output_tokens_per_second"] is None else f"{s['output_tokens_per_second']} tokens/s"
    lines = [
        f"session {s['session_id']}",
        f"  model calls   {s['model_calls']}  ({s['model_seconds']} s, {speed} out)",
        f"  tokens in     {s['input_tokens']:,}  (cached {s['input_tokens_cached']:,} = {share})",
        f"  tokens out    {s['output_tokens']:,}",
        f"  tool calls    {s['tool_calls']}  ({s['tool_calls_failed']} failed, {s['tool_seconds']} s)",
    ]
    if s["tools_used"]:
        lines.append("  by tool       " + ", ".join(f"{name} {n}" for name, n in s["tools_used"].items()))
    chat.console.print("\n".join(lines), markup=False, highlight=False)


@register("mcp", "MCP servers: status, transport and their tools")
def mcp(chat: ChatContext, args: str) -> None:
    added = chat.session.added_tools
    manager = added.mcp if added else None
    connections = list(manager.connections) if manager else []
    problems = [p for p in (added.problems if added else []) if p.startswith("MCP server")]
    if not connections and not problems:
        chat.console.print(
            "no MCP servers configured (mcp_servers in .acode/config.yml; see docs/guide/agents.md)"
        )
        return
    for conn in connections:
        settings = conn.settings
        where = getattr(settings, "url", None) or " ".join([settings.command or "", *settings.args]).strip()
        transport = getattr(settings, "transport", None) or "stdio"
        chat.console.print(f"[green]connected[/] [bold]{conn.name}[/] ({transport}: {where}) "
                           f"- {len(conn.tools)} tool(s)", highlight=False)
        for tool in conn.tools:
            chat.console.print(
                f"    {tool.name}  [dim]({tool.kind})[/] {tool.description.splitlines()[0][:80]}",
                highlight=False,
            )
    for problem in problems:
        chat.console.print(f"[red]failed[/] {problem}", markup=True, highlight=False)


def _needs(chat: ChatContext, tool: Any) -> str:
    decision = chat.session.tool_decision(tool)
    return {"allow": "runs", "ask": "asks first", "deny": "denied"}.get(decision.action, decision.action)


@register("tools", "The tools the model is offered now, and whether each runs, asks first or is denied")
def tools(chat: ChatContext, args: str) -> None:
    registry = chat.session.tools
    mode = chat.session.state.approval_mode
    chat.console.print(f"{len(registry.names())} tools (approval mode {mode}):", highlight=False)
    for tool in registry:
        head = f"  {tool.name} ({tool.kind}, {_needs(chat, tool)})  "
        room = max(20, chat.console.width - len(head) - 1)
        summary = textwrap.shorten(first_sentence(tool.description), room, placeholder=" …")
        chat.console.print(
            f"  [bold]{tool.name}[/] [dim]({tool.kind}, {_needs(chat, tool)})[/]  {escape(summary)}",
            highlight=False,
        )


_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)(?<!\bvs)\.\s+(?=[A-Z`(\"'])")


def first_sentence(text: str) -> str:
    """The description's first sentence (one line; whole words). A full stop ends it only before the
    next sentence's capital, and not after an abbreviation ("e.g. foo")."""
    flat = " ".join(text.split())
    end = _SENTENCE_END.search(flat)
    return flat[: end.start() + 1] if end else flat
