"""What the chat and ``acode -p`` add to an open session besides rendering: the git observer (what each
turn changed; auto-commit). One call per entry point keeps their own code unchanged otherwise."""

from __future__ import annotations

from typing import Any


def attach_turn_observers(session: Any, settings: Any, console: Any) -> None:
    from acode.agent.session.git_turns import GitTurns

    if not hasattr(session, "add_observer"):  # a stand-in session (tests) has no loop to observe
        return
    turns = GitTurns(session.workspace, auto_commit=settings.git.auto_commit,
                     notify=lambda text: console.print(f"[dim]git:[/] {text}", highlight=False))
    if settings.git.auto_commit and not turns.enabled:
        console.print(
            "[yellow]git.auto_commit is on but this is not a git repository: nothing will be committed[/]"
        )
    session.add_observer(turns)


def git_turns(session: Any):
    from acode.agent.session.git_turns import GitTurns

    return session.observer_of(GitTurns)
