"""``acode memory add|show|list``: the user's global memory and the context files acode reads."""

from __future__ import annotations

import typer

from acode.cli.common import console, print_json, project_root

app = typer.Typer(
    help="Memory: facts acode remembers (~/.config/acode/ACODE.md) and the context files it reads.",
    no_args_is_help=True,
)


@app.command("add")
def add(fact: str = typer.Argument(..., help="What to remember, e.g. 'run tests with pytest -q'.")) -> None:
    """Append a fact to your global ACODE.md (read by every session in every project)."""
    from acode.agent.session.memory import add_memory

    path = add_memory(fact)
    console.print(f"remembered in {path}", markup=False, highlight=False)


@app.command("show")
def show(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The context files as a session would load them (imports expanded, caps applied)."""
    from acode.agent.session.context_files import find_context_files

    files = find_context_files(project_root())
    if json_out:
        print_json(
            [{"path": str(f.path), "label": f.label, "text": f.text, "truncated": f.truncated} for f in files]
        )
        return
    for item in files:
        console.print(
            f"--- {item.label}{' (cut at the size cap)' if item.truncated else ''} ---", markup=False
        )
        console.print(item.text, markup=False, highlight=False)
    if not files:
        console.print("no context files")


@app.command("list")
def list_places(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Where acode looks for context files: global, project root down to here, sub-folders."""
    from acode.agent.session.context_files import CONTEXT_FILE_NAMES
    from acode.agent.session.memory import hierarchy

    places = hierarchy(project_root(), CONTEXT_FILE_NAMES)
    if json_out:
        print_json(
            [{"path": str(p.path), "scope": p.scope, "exists": p.exists, "loaded": p.loaded} for p in places]
        )
        return
    for place in places:
        state = ("loaded" if place.loaded else "on demand") if place.exists else "not present"
        console.print(f"{place.scope:<14} {place.path}  ({state})", markup=False, highlight=False)
