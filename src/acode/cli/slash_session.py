"""/plan, /compress and /restore in the chat, and the chat's side of plan approval and hook messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acode.cli.slash import ChatContext, register


@register("plan", "Plan mode: /plan [task] researches and writes a plan first; /plan off leaves it")
def plan(chat: ChatContext, args: str) -> None:
    if args.strip() == "off":
        chat.session.leave_plan_mode()
        chat.console.print(f"approval mode: [bold]{chat.session.state.approval_mode}[/]")
        return
    chat.session.enter_plan_mode()
    chat.console.print("[bold]plan mode[/]: read-only research, then a plan for your approval")
    if args.strip():
        chat.submit(args.strip())


@register("compress", "Compress the conversation now into a state snapshot (frees context)")
def compress(chat: ChatContext, args: str) -> None:
    report = chat.session.compress_now()
    if report is None:
        chat.console.print("compression is turned off (compression.enabled: false)")
        return
    chat.console.print(
        f"compression {report.status}: {report.tokens_before} -> {report.tokens_after} tokens"
        f" ({report.summarised_messages} messages summarised, {report.masked} outputs masked)"
        + (f": {report.detail}" if report.status == "rejected" and report.detail else ""),
        markup=False, highlight=False,
    )


@register("restore", "Undo the agent's last N file edits: /restore [N] (default 1)")
def restore(chat: ChatContext, args: str) -> None:
    count = int(args) if args.strip().isdigit() else 1
    undone = chat.session.restore(count, typed=f"/restore {args}".strip())
    if undone is None:
        chat.console.print("checkpoints is turned off (checkpoints.enabled: false)")
        return
    for edit in undone:
        chat.console.print(
            f"undid {edit.tool} #{edit.seq}: " + ", ".join(edit.restored + edit.removed), markup=False
        )


class ChatSessionUI:
    """The chat as the session's SessionUI: plan approval and hook messages."""

    def __init__(self, console: Any):
        self.console = console

    def approve_plan(self, path: Path, text: str):
        from rich.markdown import Markdown
        from rich.prompt import Prompt

        from acode.agent.middlewares.plan_mode import PlanDecision

        self.console.rule(f"plan: {path}")
        self.console.print(Markdown(text))
        self.console.rule()
        answer = Prompt.ask(
            "approve the plan? [y] yes (ask before edits) / [a] yes, auto-edit / [n] no",
            choices=["y", "a", "n"],
            default="y",
            console=self.console,
        )
        if answer == "n":
            feedback = Prompt.ask("what should change?", default="", console=self.console)
            return PlanDecision(approved=False, feedback=feedback)
        return PlanDecision(approved=True, mode="auto_edit" if answer == "a" else "default")

    def notify(self, text: str) -> None:
        self.console.print(f"[dim]hook:[/] {text}", highlight=False)
