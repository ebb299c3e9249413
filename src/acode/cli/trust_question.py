"""Trust before settings load (see acode.config.trust): ``acode --trust`` for this run, the question asked
once in a terminal about an undecided folder whose own settings would run commands, and the notice of
what an untrusted project's settings wanted and did not get. The ``acode trust`` command: cli.trust_cmd."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

_noticed: set[str] = set()
_trust_this_run = False  # `acode --trust ...`, set by the main callback before the command runs


def trust_this_run(value: bool) -> None:
    global _trust_this_run
    _trust_this_run = bool(value)


def trusted_this_run() -> bool:
    return _trust_this_run


def resolve_trust(root: Path, flag: bool = False, *, ask_on: Console | None = None) -> bool | None:
    """True: trusted for this command; None: the stored rules decide (the loader reads them). With a
    person at a terminal (``ask_on``: where to ask), an undecided folder whose settings would run something
    gets the question once."""
    from acode.config.trust import TrustStore, project_commands
    from acode.errors import ConfigError

    if flag or _trust_this_run:
        return True
    store = TrustStore()
    if store.decision(root) is not None or ask_on is None:
        return None
    try:
        from acode.config.loader import project_layer

        found = project_commands(root, project_layer(root))
    except ConfigError:
        return None  # the loader reports the broken file
    if not found:
        return None
    return _ask(root, found, store, ask_on)


_ANSWERS = {"y": "trust", "yes": "trust", "p": "parent", "parent": "parent",
            "n": "distrust", "no": "distrust"}
MAX_QUESTIONS = 5  # then nothing is stored: the question comes back next time


def _ask(root: Path, found: list[str], store: Any, err_console: Console) -> bool | None:
    err_console.print(
        f"[bold]This project's own settings can run commands on your machine[/] ({root}):", highlight=False
    )
    for line in found[:12]:
        err_console.print(f"  - {line}", markup=False, highlight=False)
    if len(found) > 12:
        err_console.print(f"  ... and {len(found) - 12} more", markup=False)
    choice = None
    for _ in range(MAX_QUESTIONS):  # an answer that is none of these is asked again, never stored
        try:
            answer = err_console.input(
                "Trust this folder? [bold]y[/]es / trust the [bold]p[/]arent folder / [bold]n[/]o "
                "(asked once) "
            )
        except (EOFError, KeyboardInterrupt):
            break
        choice = _ANSWERS.get(answer.strip().lower())
        if choice is not None:
            break
        err_console.print("please answer y, p or n", markup=False)
    if choice == "trust":
        store.set(root, "trust")
    elif choice == "parent":
        store.set(root.parent, "trust")
    elif choice == "distrust":
        store.set(root, "distrust")
        err_console.print("not trusted: its commands will not run (`acode trust` changes this)", markup=False)
    else:
        err_console.print("not trusted for now (nothing stored)")
    return None


def trust_notice(settings: Any, err_console: Console) -> None:
    """Once per folder and process: what an untrusted project's settings wanted and did not get."""
    state = settings.trust
    if state.trusted or not state.withheld or state.root in _noticed:
        return
    _noticed.add(state.root)
    shown = "; ".join(state.withheld[:6]) + (
        f"; and {len(state.withheld) - 6} more" if len(state.withheld) > 6 else ""
    )
    err_console.print(
        f"note: {state.root} is {state.reason}, so its .acode/config.yml may not run commands, send prompts "
        f"off this machine or switch protections off; left out: {shown}. "
        "Trust it with `acode trust` (stored) or `acode --trust ...` (this run only).",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
