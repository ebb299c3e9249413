"""``acode trust``: decide whether a folder's own settings may run commands (see acode.config.trust).

    acode trust                 trust the current project (stored; covers its subfolders)
    acode trust PATH --parent   trust PATH's parent folder (all projects under it)
    acode trust --distrust      never use this project's commands (and stop asking)
    acode trust --forget        remove the rule for this folder (acode asks again)
    acode trust --show          what this folder's settings would run, and the decision in force
    acode trust --list          every rule
    acode --trust <command>     trust the project for this one command, storing nothing

The question asked before settings load and the notice of what was held back: acode.cli.trust_question.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from acode.cli.common import console, print_json, project_root
from acode.errors import UsageError

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
