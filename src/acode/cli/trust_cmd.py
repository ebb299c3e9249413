"""``acode trust``: decide whether a folder's own settings may run commands (see acode.config.trust),
the question asked once in a terminal, and the notice shown when an untrusted project was held back.

    acode trust                 trust the current project (stored; covers its subfolders)
    acode trust PATH --parent   trust PATH's parent folder (all projects under it)
    acode trust --distrust      never use this project's commands (and stop asking)
    acode trust --forget        remove the rule for this folder (acode asks again)
    acode trust --show          what this folder's settings would run, and the decision in force
    acode trust --list          every rule
    acode --trust <command>     trust the project for this one command, storing nothing
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from acode.cli.common import console, err_console, interactive, print_json, project_root
from acode.errors import UsageError

_noticed: set[str] = set()
_trust_this_run = False  # `acode --trust ...`, set by the main callback before the command runs


def trust_this_run(value: bool) -> None:
    global _trust_this_run
    _trust_this_run = bool(value)


def trusted_this_run() -> bool:
    return _trust_this_run


_PATH = typer.Argument(None, help="The folder (default: the current project).")
_PARENT = typer.Option(False, "--parent", help="Decide for the folder's parent (every project in it).")
_DISTRUST = typer.Option(False, "--distrust", help="Store 'do not trust': its commands never run.")
_FORGET = typer.Option(False, "--forget", help="Remove the folder's rule (acode asks again).")
_SHOW = typer.Option(False, "--show", help="Only show the decision and what the settings would run.")
_LIST = typer.Option(False, "--list", help="List every rule.")
_JSON = typer.Option(False, "--json", help="Print JSON.")


def trust(
    path: Path = _PATH, parent: bool = _PARENT, distrust: bool = _DISTRUST, forget: bool = _FORGET,
    show: bool = _SHOW, list_rules: bool = _LIST, json_out: bool = _JSON,
) -> None:
    """Trust a folder: its .acode settings may then run hooks, MCP servers, test and verify commands,
    !{...} in custom commands, allow-listed shell commands and yolo. Rules live in the user config folder."""
    from acode.config.trust import TrustStore

    if sum([distrust, forget, show, list_rules]) > 1:
        raise UsageError(
            "ACODE-TRUST-003", "--distrust, --forget, --show and --list do different things; give one"
        )
    store = TrustStore()
    if list_rules:
        rules = store.rules()
        if json_out:
            print_json({"file": str(store.path), "folders": rules})
        elif not rules:
            console.print(f"no trust rules yet ({store.path})", markup=False)
        for folder, decision in rules.items():
            if not json_out:
                console.print(f"{decision:>8}  {folder}", markup=False)
        return
    folder = (path or project_root()).expanduser().resolve()
    if not folder.is_dir():
        raise UsageError("ACODE-TRUST-004", f"{folder} is not a folder")
    target = folder.parent if parent else folder
    changed = False
    if forget:
        changed = store.forget(target)
    elif not show:
        store.set(target, "distrust" if distrust else "trust")
        changed = True
    report = _report(folder, store) | {"changed": changed, "file": str(store.path)}
    if json_out:
        print_json(report)
        return
    if forget:
        console.print(
            ("forgot the rule for " if changed else "there was no rule for ") + str(target), markup=False
        )
    elif not show:
        console.print(f"stored: {'do not trust' if distrust else 'trust'} {target}", markup=False)
    console.print(f"{folder} is {report['reason']}  [dim]({store.path})[/]", highlight=False)
    if report["commands"]:
        label = "its settings may run" if report["trusted"] else "left out while untrusted"
        console.print(f"{label}:", markup=False)
        for line in report["commands"]:
            console.print(f"  - {line}", markup=False)


def _report(folder: Path, store: Any) -> dict[str, Any]:
    from acode.config.loader import project_layer
    from acode.config.trust import decide, project_commands

    trusted, reason = decide(folder, None, store)
    return {
        "folder": str(folder),
        "trusted": trusted,
        "reason": reason,
        "commands": project_commands(folder, project_layer(folder)),
    }


def resolve_trust(root: Path, flag: bool = False) -> bool | None:
    """True: trusted for this command; None: the stored rules decide (the loader reads them). From a
    terminal, an undecided folder whose settings would run something gets the question once."""
    from acode.config.trust import TrustStore, project_commands
    from acode.errors import ConfigError

    if flag or _trust_this_run:
        return True
    store = TrustStore()
    if store.decision(root) is not None or not interactive():
        return None
    try:
        from acode.config.loader import project_layer

        found = project_commands(root, project_layer(root))
    except ConfigError:
        return None  # the loader reports the broken file
    if not found:
        return None
    return _ask(root, found, store)


_ANSWERS = {"y": "trust", "yes": "trust", "p": "parent", "parent": "parent",
            "n": "distrust", "no": "distrust"}
MAX_QUESTIONS = 5  # then nothing is stored: the question comes back next time


def _ask(root: Path, found: list[str], store: Any) -> bool | None:
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


def trust_notice(settings: Any) -> None:
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
