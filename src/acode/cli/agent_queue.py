"""``acode agent start|run|status|show|cancel|retry``, ``acode agents list``, ``acode extensions list``.
Services are imported inside the commands so ``acode --help`` stays light."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from acode.cli.common import (
    SANDBOX_HELP,
    console,
    err_console,
    model_overrides,
    print_json,
    print_problem,
    project_root,
    say_sandbox,
    settings_for,
)

agent_app = typer.Typer(
    help="Queue tasks for sub-agents and run them (state in .acode/agents/).", no_args_is_help=True
)
agents_app = typer.Typer(
    help="Agent definitions: built-in, .acode/agents/*.md, extension personas.", no_args_is_help=True
)
extensions_app = typer.Typer(
    help="Extensions in .acode/extensions/ and ~/.config/acode/extensions/.", no_args_is_help=True
)

FINISHED_LINE = "Orchestrator finished task {task_id}."
NOTHING_LINE = "No pending agent tasks found."


def _selection(ctx: typer.Context) -> list[str] | None:
    return ctx.find_root().params.get("extensions") or None


def _store(root: Path):
    from acode.paths import ProjectPaths
    from acode.queue.store import TaskStore

    return TaskStore(ProjectPaths(root).agents_dir)


def _agents(root: Path, selection: list[str] | None, problems: list[str] | None = None):
    from acode.agent.subagents.definitions import load_agents
    from acode.extensions.loader import load_enabled_extensions

    return load_agents(root, load_enabled_extensions(root, selection), problems=problems)


def _warn(problems: list[str]) -> None:
    for problem in problems:
        print_problem(err_console, "warning", problem, style="yellow")


@agent_app.command("start")
def start(
    ctx: typer.Context,
    agent: str = typer.Argument(..., help="Agent name (`acode agents list`)."),
    prompt: str = typer.Argument(..., help="The task for the agent."),
) -> None:
    """Create a pending task for AGENT."""
    from acode.agent.subagents.definitions import get_agent

    root = project_root()
    get_agent(_agents(root, _selection(ctx)), agent)
    task = _store(root).create(agent, prompt)
    typer.echo(f"Task {task.task_id} created for agent '{agent}' and is now pending.")


@agent_app.command("run")
def run(
    ctx: typer.Context,
    run_all: bool = typer.Option(False, "--all", help="Keep going until no task is pending."),
    workers: int = typer.Option(
        1, "--workers", min=1, max=32, help="Run this many worker processes in parallel."
    ),
    model: str = typer.Option(None, "--model", "-m", help="Model name or .gguf path for the agents."),
    backend: str = typer.Option(None, "--backend", help="embedded | openai | scripted"),
    worker: bool = typer.Option(
        False, "--worker", hidden=True, help="Internal: run as one of several workers."
    ),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
) -> None:
    """Run the oldest pending task (or all of them) and record the outcome."""
    root = project_root()
    if workers > 1:
        _run_workers(root, workers, run_all, model, backend, _selection(ctx), sandbox)
        return
    from acode.queue.worker import drain

    store = _store(root)
    runner = _task_runner(root, model, backend, _selection(ctx), sandbox)
    done = drain(
        store, runner, run_all=run_all, on_done=lambda s: typer.echo(FINISHED_LINE.format(task_id=s.task_id))
    )
    if not done and not worker:
        typer.echo(NOTHING_LINE)
    if any(state.status == "failed" for state in done):
        for state in done:
            if state.status == "failed":
                err_console.print(f"task {state.task_id} failed: {state.error}", markup=False, soft_wrap=True)
        raise typer.Exit(1)


def _run_workers(
    root: Path,
    workers: int,
    run_all: bool,
    model: str | None,
    backend: str | None,
    selection: list[str] | None,
    sandbox: str | None,
) -> None:
    from acode.queue.worker import spawn_workers

    run_args = [*(["--model", model] if model else []), *(["--backend", backend] if backend else []),
                *(["--sandbox", sandbox] if sandbox else [])]
    from acode.cli.trust_question import trusted_this_run

    global_args = [arg for name in (selection or []) for arg in ("-e", name)]
    global_args += ["--trust"] if trusted_this_run() else []
    seen: list[str] = []

    def echo(line: str) -> None:
        seen.append(line)
        typer.echo(line)

    code = spawn_workers(
        workers, root, run_all=run_all, echo=echo, global_args=global_args, run_args=run_args
    )
    if not any(line.startswith("Orchestrator finished task") for line in seen):
        typer.echo(NOTHING_LINE)
    raise typer.Exit(code)


def _task_runner(root: Path, model: str | None, backend: str | None, selection: list[str] | None,
                 sandbox_mode: str | None = None):
    from acode.agent.loop.agent_loop import LoopConfig
    from acode.command_sandbox import command_sandbox
    from acode.llm.factory import build_model
    from acode.queue.agent_runner import make_task_runner
    from acode.queue.worker import TaskOutcome
    from acode.tools.builtin import default_registry

    settings = settings_for(root, **model_overrides(model, backend), sandbox__mode=sandbox_mode)
    say_sandbox(settings)
    problems: list[str] = []
    agents = _agents(root, selection, problems)
    _warn(problems)
    inner = make_task_runner(
        agents,
        lambda: build_model(settings.model),
        default_registry,
        rules=settings.agent.rules,
        loop_config=LoopConfig.from_settings(settings),
        sandbox=command_sandbox(settings.sandbox),
    )

    def announced(task, layout, should_abort) -> TaskOutcome:
        err_console.print(f"[dim]running task {task.task_id} ({task.agent}) ...[/]", highlight=False)
        return inner(task, layout, should_abort)

    return announced


def _task_row(task: Any) -> list[str]:
    """The cells of a task (a repository may ship task files: shown as text, secrets hidden)."""
    from acode.shown import for_terminal

    prompt = task.prompt if len(task.prompt) <= 60 else task.prompt[:57] + "..."
    cells = [task.task_id, task.agent, task.status, task.created_at[:19].replace("T", " "), prompt]
    return [for_terminal(str(cell)) for cell in cells]


@agent_app.command("status")
def status(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """All tasks, oldest first (re-queues tasks whose worker died; reports unreadable state files)."""
    store = _store(project_root())
    store.recover_stale()
    tasks, problems = store.scan()
    if json_out:
        print_json(
            {
                "tasks": [t.to_json() for t in tasks],
                "problems": [{"file": str(p.path), "message": p.message} for p in problems],
            }
        )
        return
    _warn([p.message for p in problems])
    if not tasks:
        console.print('No agent tasks yet. Create one: acode agent start <agent> "<prompt>"', markup=False)
        return
    console.print(task_table(tasks))


def task_table(tasks: list[Any]):
    from rich.table import Table
    from rich.text import Text

    table = Table(show_lines=False)
    for column in ("Task ID", "Agent", "Status", "Created At", "Prompt"):
        table.add_column(column, overflow="fold", no_wrap=column in ("Task ID", "Created At"))
    colours = {"complete": "green", "failed": "red", "running": "cyan", "cancelled": "dim"}
    for task in tasks:
        row = [Text(cell) for cell in _task_row(task)]  # Text: never read as markup
        if task.status in colours:
            row[2].stylize(colours[task.status])
        table.add_row(*row)
    return table


@agent_app.command("show")
def show(
    task_id: str = typer.Argument(..., help="The task id."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
    lines: int = typer.Option(40, "--lines", help="How many log lines to show."),
) -> None:
    """One task: its state, its plan file and the end of its log."""
    from rich.markup import escape

    from acode.shown import for_terminal

    store = _store(project_root())
    task = store.load(task_id)
    plan = _read(Path(task.plan_file))
    log_tail = "\n".join(_read(Path(task.log_file)).splitlines()[-lines:])
    if json_out:
        print_json({**task.to_json(), "plan": plan, "logTail": log_tail})
        return
    for key, value in task.to_json().items():
        if value not in (None, ""):
            shown = escape(for_terminal(str(value)))
            console.print(f"[bold]{key}[/]: {shown}", highlight=False, soft_wrap=True)
    console.print("\n[bold]plan[/]")
    console.print(for_terminal(plan) or "(empty)", markup=False, soft_wrap=True)
    console.print("\n[bold]log[/] (last lines)")
    console.print(for_terminal(log_tail) or "(empty)", markup=False, soft_wrap=True)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


@agent_app.command("cancel")
def cancel(task_id: str = typer.Argument(..., help="The task id.")) -> None:
    """Cancel a pending task, or ask a running one to stop at its next turn."""
    task = _store(project_root()).cancel(task_id)
    if task.status == "cancelled":
        typer.echo(f"Task {task_id} cancelled.")
    else:
        typer.echo(f"Task {task_id} is running; it was asked to stop at its next turn.")


@agent_app.command("retry")
def retry(task_id: str = typer.Argument(..., help="The task id.")) -> None:
    """Put a failed, cancelled or complete task back in the queue."""
    _store(project_root()).retry(task_id)
    typer.echo(f"Task {task_id} is pending again.")


@agents_app.command("list")
def list_agents(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help="Print JSON.")
) -> None:
    """Every agent usable in `acode agent start` and by invoke_agent."""
    problems: list[str] = []
    agents = _agents(project_root(), _selection(ctx), problems)
    if json_out:
        print_json(
            {
                "agents": [a.model_dump(exclude={"system_prompt"}) for a in agents.values()],
                "problems": problems,
            }
        )
        return
    _warn(problems)
    from rich.table import Table

    table = Table()
    for column in ("Name", "Description", "Tools", "Max turns", "Source"):
        table.add_column(column, overflow="fold")
    for agent in agents.values():
        tools = ", ".join(agent.tools) if agent.tools is not None else "all"
        table.add_row(agent.name, agent.description, tools, str(agent.max_turns), agent.source)
    console.print(table)


@extensions_app.command("list")
def list_extensions(
    ctx: typer.Context, json_out: bool = typer.Option(False, "--json", help="Print JSON.")
) -> None:
    """Installed extensions and whether they are enabled (`acode -e NAME` enables only the named ones)."""
    from acode.extensions.loader import discover_extensions, select_extensions

    root = project_root()
    problems: list[str] = []
    found = discover_extensions(root, problems=problems)
    enabled = {e.name for e in select_extensions(found, _selection(ctx))}
    rows = [
        {
            "name": ext.name,
            "version": ext.manifest.version,
            "description": ext.manifest.description,
            "scope": ext.scope,
            "enabled": ext.name in enabled,
            "path": str(ext.manifest_path),
            "contextFileName": ext.manifest.context_file_name,
            "persona": bool(ext.manifest.prompt),
            "excludeTools": ext.manifest.exclude_tools,
            "mcpServers": sorted(ext.manifest.mcp_servers),
        }
        for ext in found.values()
    ]
    if json_out:
        print_json({"extensions": rows, "problems": problems})
        return
    _warn(problems)
    if not rows:
        console.print("No extensions installed (.acode/extensions/ or ~/.config/acode/extensions/).")
        return
    from rich.table import Table

    table = Table()
    for column in ("Name", "Version", "Enabled", "Scope", "Description", "MCP servers"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(
            row["name"],
            row["version"],
            "yes" if row["enabled"] else "no",
            row["scope"],
            row["description"],
            ", ".join(row["mcpServers"]),
        )
    console.print(table)
