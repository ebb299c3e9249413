"""``/undo`` and ``/diff`` in the chat (see acode.agent.session.git_turns)."""

from __future__ import annotations

from acode.cli.slash import ChatContext, register


@register("diff", "Show what the last turn that changed files changed (a git diff)")
def diff(chat: ChatContext, args: str) -> None:
    from rich.syntax import Syntax

    from acode.cli.turn_hooks import git_turns

    turns = git_turns(chat.session)
    if turns is None or not turns.enabled:
        chat.console.print("/diff needs a git repository")
        return
    text = turns.diff()
    if not text:
        chat.console.print("no turn in this chat has changed files yet")
        return
    committed = f" (commit {turns.last.commit[:10]})" if turns.last.commit else " (not committed)"
    chat.console.print(
        f"last turn changed {', '.join(turns.last.paths)}{committed}", markup=False, highlight=False
    )
    chat.console.print(Syntax(text, "diff", theme="ansi_dark", word_wrap=True))


@register("undo", "Undo acode's last commit (only while it is HEAD and no tracked file has changes)")
def undo(chat: ChatContext, args: str) -> None:
    from acode.agent.session.git_turns import undo_last_commit
    from acode.audience import EDITS_UNDONE_NOTE, RESTORED_ACK

    outcome = undo_last_commit(chat.session.workspace)
    if not outcome.done:
        chat.console.print(f"[yellow]not undone:[/] {outcome.message}", highlight=False)
        return
    chat.console.print(outcome.message, markup=False, highlight=False)
    chat.session.add_note(
        f"{EDITS_UNDONE_NOTE} commit; these files are back to their earlier content: "
        f"{', '.join(outcome.paths)}.",
        RESTORED_ACK,
        typed="/undo",
    )
