"""``!command`` in the chat: the user's own shell command, run through the agent's shell tool with the
same validation, approval rules (``agent.rules``), approval mode, hooks and output budget as the model's
calls. The command and its output join the conversation, so the next prompt can refer to them."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from acode.agent.loop.result import ToolStep
from acode.audience import SHELL_ACK, SHELL_NOTE
from acode.shown import for_terminal

SHELL_TOOL = "run_shell_command"
CONTEXT_CHARS = 8000


def run_user_shell(chat: Any, command: str, typed: str | None = None) -> ToolStep | None:
    """Run ``command`` as the user's own; ``typed``: what they typed for it (default ``!command``)."""
    session = chat.session
    ran = session.run_user_tool(SHELL_TOOL, {"command": command, "description": "typed by the user after !"})
    if ran is None:
        chat.console.print(f"the shell tool is not available in this session ({SHELL_TOOL} is excluded)")
        return None
    step, result = ran
    if step.decision != "allowed":
        chat.console.print(f"[red]not run ({step.decision}):[/] {escape(step.error or '')}", highlight=False)
        return step
    shown = for_terminal(result.output if result.ok else (result.error or ""))
    chat.console.print(shown, markup=False, highlight=False)
    output = step.output if len(step.output) <= CONTEXT_CHARS else step.output[:CONTEXT_CHARS] + "\n[... cut]"
    session.add_note(f"{SHELL_NOTE}\n{output}", SHELL_ACK, typed=typed or f"!{command}")
    return step
