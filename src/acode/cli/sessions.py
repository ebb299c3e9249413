"""``acode sessions list|show``: the agent sessions recorded in this project's .acode/acode.db."""

from __future__ import annotations

import datetime
import json

import typer

from acode.cli.common import console, print_json, project_root

app = typer.Typer(
    help="Recorded agent sessions: list them, show one (resume with acode -r ID).", no_args_is_help=True
)


def _store():
    from acode.paths import ProjectPaths
    from acode.store.sessions import SessionStore

    return SessionStore(ProjectPaths(project_root()).db_file)


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M")


@app.command("list")
def list_sessions(
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    limit: int = typer.Option(20, "--limit", "-n", help="How many, newest first."),
) -> None:
    """List this project's sessions, newest first: id, status, title (resume one with acode -r ID)."""
    from acode.agent.session.said import title_of

    store = _store()
    sessions = store.list(limit=limit)
    for s in sessions:
        s.title = title_of(store, s)
    store.close()
    if json_out:
        print_json([s.as_dict() for s in sessions])
        return
    if not sessions:
        console.print("no sessions yet: start one with acode or acode -p '...'")
        return
    from rich.table import Table

    table = Table("id", "updated", "status", "turns", "msgs", "title", box=None, header_style="bold")
    for s in sessions:
        table.add_row(s.id, _when(s.updated), s.status, str(s.turns), str(s.messages), s.title)
    console.print(table)


@app.command("show")
def show_session(
    session_id: str = typer.Argument(..., help="A session id, a unique prefix of one, or 'latest'."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON (session, messages, events)."),
) -> None:
    """Show one session's messages (the tool calls and results as the model saw them)."""
    store = _store()
    info = store.resolve(session_id)
    messages = store.load_messages(info.id)
    events = store.events(info.id)
    store.close()
    if json_out:
        print_json(
            {
                "session": info.as_dict(),
                "messages": [m.model_dump(mode="json", exclude_defaults=True) for m in messages],
                "events": events,
            }
        )
        return
    console.print(
        f"[bold]{info.id}[/] {info.status} - {info.turns} turns - model {info.model or '?'} - mode "
        f"{info.approval_mode}"
    )
    for message in messages:
        if message.role == "system":
            continue
        calls = "; ".join(
            f"{c.name} {json.dumps(c.arguments, ensure_ascii=False)}" for c in message.tool_calls
        )
        text = (message.content or calls).strip().replace("\n", " ")
        console.print(f"[dim]{message.role:>9}[/] {text[:200]}", highlight=False)
