"""/plan, /compress and /restore in the chat, and the chat's side of plan approval and hook messages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acode.cli.slash import ChatContext, register


def _middleware(chat: ChatContext, name: str, *, setting: str | None = None) -> Any:
    """The session's middleware called ``name``; None (and a note naming ``setting``) when it is off."""
    found = next((m for m in chat.session.loop.middlewares if getattr(m, "name", "") == name), None)
    if found is None and setting:
        chat.console.print(f"{name} is turned off ({setting}: false)")
    return found


@register("plan", "Plan mode: /plan [task] researches and writes a plan first; /plan off leaves it")
def plan(chat: ChatContext, args: str) -> None:
    plan_mode = _middleware(chat, "plan_mode")
    state = chat.session.state
    if args.strip() == "off":
        if state.approval_mode == "plan":
            chat.session.set_mode(plan_mode.previous_mode if plan_mode else "default")
        chat.console.print(f"approval mode: [bold]{state.approval_mode}[/]")
        return
    if state.approval_mode != "plan":
        previous = state.approval_mode
        chat.session.set_mode("plan")
        if plan_mode is not None:
            plan_mode.previous_mode = previous
            plan_mode.enter(state)
    chat.console.print("[bold]plan mode[/]: read-only research, then a plan for your approval")
    if args.strip():
        chat.submit(args.strip())


@register("compress", "Compress the conversation now into a state snapshot (frees context)")
def compress(chat: ChatContext, args: str) -> None:
    compression = _middleware(chat, "compression", setting="compression.enabled")
    if compression is None:
        return
    report = compression.compress(chat.session.state, force=True)
    chat.session.loop.observers.on_history(chat.session.state)
    chat.console.print(
        f"compression {report.status}: {report.tokens_before} -> {report.tokens_after} tokens"
        f" ({report.summarised_messages} messages summarised, {report.masked} outputs masked)"
    )


@register("restore", "Undo the agent's last N file edits: /restore [N] (default 1)")
def restore(chat: ChatContext, args: str) -> None:
    checkpoints = _middleware(chat, "checkpoints", setting="checkpoints.enabled")
    if checkpoints is None:
        return
    count = int(args) if args.strip().isdigit() else 1
    undone = checkpoints.restore(count)
    files = []
    for edit in undone:
        files += edit.restored + [f"{p} (removed)" for p in edit.removed]
        chat.console.print(f"undid {edit.tool} #{edit.seq}: " + ", ".join(edit.restored + edit.removed), markup=False)
    from acode.llm.types import Message

    state = chat.session.state
    state.history.append(Message.user(f"Note: I undid your last {len(undone)} edit(s); these files are back to their earlier content: {', '.join(files)}."))
    state.history.append(Message.assistant("Understood: I will take the restored files into account."))
    chat.session.loop.observers.on_history(state)


class ChatControlUI:
    """What the self-control middlewares ask of the chat: plan approval and hook messages."""

    def __init__(self, console: Any):
        self.console = console

    def approve_plan(self, path: Path, text: str):
        from rich.markdown import Markdown
        from rich.prompt import Prompt

        from acode.agent.plan_mode import PlanDecision

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
