"""What the chat and ``acode -p`` add to an open session besides rendering: the git observer (what each
turn changed; auto-commit). One call per entry point keeps their own code unchanged otherwise."""

from __future__ import annotations

from typing import Any


def attach_turn_observers(session: Any, settings: Any, console: Any) -> None:
    from acode.agent.git_turns import GitTurns

    loop = getattr(session, "loop", None)
    if loop is None:  # a stand-in session (tests) has no loop to observe
        return
    turns = GitTurns(session.workspace, auto_commit=settings.git.auto_commit,
                     notify=lambda text: console.print(f"[dim]git:[/] {text}", highlight=False))
    if settings.git.auto_commit and not turns.enabled:
        console.print("[yellow]git.auto_commit is on but this is not a git repository: nothing will be committed[/]")
    loop.observers.items.append(turns)


def git_turns(session: Any):
    from acode.agent.git_turns import GitTurns

    return next((o for o in session.loop.observers.items if isinstance(o, GitTurns)), None)
