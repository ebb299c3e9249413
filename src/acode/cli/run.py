"""``acode run``, ``acode summary``, ``acode audit``, ``acode stats``: parse flags, call the pipeline
service, render. The pipeline (and any model) is imported only inside the commands."""

from __future__ import annotations

from typing import Any

import typer

from acode.cli.common import (
    SANDBOX_HELP,
    console,
    err_console,
    interactive,
    model_overrides,
    print_json,
    project_root,
    say_sandbox,
    settings_for,
)
from acode.errors import UsageError
from acode.paths import ProjectPaths


def run(
    task: str = typer.Argument(None, help="What to do, e.g. 'add is_even(n) to util.py with a test'."),
    allow_dirty: bool = typer.Option(False, "--allow-dirty", help="Start even with uncommitted changes."),
    approve: bool = typer.Option(
        False, "--approve", help="Non-interactive: approve at a required human review."
    ),
    override_reason: str = typer.Option(
        None,
        "--override-reason",
        help="Accept a final review rejection (or timeout) for this reason; audited.",
    ),
    max_cycles: int = typer.Option(
        None, "--max-cycles", min=1, help="Plan -> review cycles (pipeline.max_cycles)."
    ),
    model: str = typer.Option(
        None, "--model", "-m", help="Bundled model name, server model name or a .gguf path."
    ),
    backend: str = typer.Option(None, "--backend", help="embedded | openai | scripted"),
    json_out: bool = typer.Option(
        False, "--json", help="Print the summary as JSON (no questions are asked)."
    ),
    undo: str = typer.Option(
        None, "--undo", metavar="SESSION", help="Restore the tree to the start of SESSION."
    ),
    resume: str = typer.Option(None, "--resume", metavar="SESSION", help="Continue an interrupted SESSION."),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
) -> None:
    """Plan -> execute -> verify -> review a task; the reviewer is the final gate.

    Exit codes: 0 approved, 1 failure, 50 rejected, 51 human declined, 52 review timeout."""
    root = project_root()
    if undo:
        _undo(root, undo, json_out)
        return
    if not resume and not task:
        raise UsageError("ACODE-RUN-014", "no task given", hint='acode run "add is_even(n) to util.py"')
    from acode.llm.factory import build_model
    from acode.pipeline.human import HumanGate
    from acode.pipeline.orchestrator import resume_run, start_run
    from acode.tools.builtin import default_registry

    settings = settings_for(root, **model_overrides(model, backend), sandbox__mode=sandbox)
    say_sandbox(settings)
    people = interactive() and not json_out
    human = HumanGate(
        policy=settings.reviewer.human_review,
        interactive=people,
        approve_flag=approve,
        override_reason=override_reason,
        console=err_console if json_out else console,
    )
    from acode.cli.progress import RunProgress

    progress = RunProgress(err_console)  # stage, step, elapsed, tokens/s while a model works
    model_in_use = build_model(settings.model)
    common: dict[str, Any] = {
        "settings": settings,
        "model": model_in_use if json_out else progress.meter(model_in_use),
        "tools": default_registry(),
        "human": human,
        "db_path": ProjectPaths(root).db_file,
        "listeners": [] if json_out else [progress.on_event, _progress],
    }
    if resume:
        from acode.pipeline.stages import load_state

        state = load_state(root, resume)
        if state is None:
            raise UsageError(
                "ACODE-RUN-015", f"no run session '{resume}' in {root}", hint="see `acode summary`"
            )
        outcome = resume_run(root, state, **common)
    else:
        outcome = start_run(root, task, allow_dirty=allow_dirty, max_cycles=max_cycles, **common)
    _show(outcome.summary, json_out)
    if outcome.message and not json_out:
        err_console.print(outcome.message, soft_wrap=True, markup=False, highlight=False)  # commands unbroken
    raise typer.Exit(outcome.exit_code)


def _progress(event: dict[str, Any]) -> None:
    from acode.pipeline.models import step_label

    kind = event["event"]
    if kind == "stage_enter":
        err_console.print(f"[bold]▶ {event['stage']}[/] (cycle {event['cycle']})")
    elif kind == "stage_exit":
        err_console.print(f"  {event['outcome']}: {event['message']} [dim]({event['duration_s']:.1f} s)[/]")
    elif kind == "step_start":
        total = f"/{event['total']}" if event.get("total") and event["index"] else ""
        what = step_label(event["index"], event.get("attempt", 0)) + total
        err_console.print(f"  {what}: {event['description']}", highlight=False, markup=False)
    elif kind == "step_result":
        files = ", ".join(event["files_changed"]) or "no files"
        err_console.print(f"  {step_label(event['index'], event['attempt'])}: {event['status']} ({files})")
    elif kind == "verification_compared":
        for check in event["checks"]:
            for line in _compared_lines(check):
                err_console.print(f"  {line}", highlight=False, markup=False)
    elif kind in ("verify_retry", "replan", "escalation", "timeout"):
        err_console.print(f"  {kind}: {_detail(event)}", style="yellow", highlight=False, markup=False)


def _detail(event: dict[str, Any]) -> str:
    kind = event["event"]
    if kind == "verify_retry":
        return f"attempt {event['attempt']} of {event['max']}: the failing checks go back to the executor"
    if kind == "replan":
        issues = len(event.get("feedback", []))
        return f"cycle {event['cycle']}: the reviewer's {issues} issue(s) go to the planner"
    if kind == "timeout":
        what = event.get("message") or event.get("command") or ""
        seconds = f" after {event['seconds']:g} s" if event.get("seconds") else ""
        return f"{event.get('stage', '')}{seconds}" + (f": {what}" if what else "")
    return event.get("reason", "")


def _compared_lines(check: dict[str, Any]) -> list[str]:
    """A failed check run again on the start commit, as progress lines."""
    from acode.pipeline.models import CheckComparison
    from acode.pipeline.verification_report import comparison_lines

    lines = comparison_lines(CheckComparison.model_validate(check))
    return lines or [f"`{check['command']}` compared with the start: {check['note'] or 'no difference'}"]


def _show(summary: dict[str, Any], json_out: bool) -> None:
    if json_out:
        print_json(summary)
    else:
        from acode.pipeline.summary import render_summary

        render_summary(summary, console)


def _undo(root, session: str, json_out: bool) -> None:
    from acode.pipeline.events import EVENTS_FILE, EventLog
    from acode.pipeline.stages import load_state, runs_dir
    from acode.pipeline.undo import undo_run

    state = load_state(root, session)
    if state is None:
        raise UsageError("ACODE-RUN-015", f"no run session '{session}' in {root}", hint="see `acode summary`")
    report = undo_run(root, state)
    EventLog(runs_dir(root) / state.session_id / EVENTS_FILE).emit(
        "undo",
        restored_commit=report.restored_commit,
        removed=report.removed,
        reapplied_snapshot=report.reapplied_snapshot,
    )
    if json_out:
        print_json({"session_id": state.session_id, **report.__dict__})
        return
    console.print(f"restored {root} to {report.restored_commit[:12]} (start of {state.session_id})")
    for path in report.removed:
        console.print(f"  removed {path}")
    if report.reapplied_snapshot:
        console.print("  re-applied the uncommitted changes present at the start")


def summary(
    session: str = typer.Argument(None, help="Session id or prefix (default: the latest run)."),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Show a run's stored summary (no model call)."""
    from acode.store.summaries import SummaryStore

    root = project_root()
    store = SummaryStore(ProjectPaths(root).db_file)
    found = store.get(session) if session else store.latest()
    if found is None:
        what = f"run session '{session}'" if session else "run"
        raise UsageError(
            "ACODE-RUN-016", f"no stored summary of a {what} in {root}", hint='start one: acode run "<task>"'
        )
    _show(found, json_out)


def audit(
    session: str = typer.Option(None, "--session", help="Only this session's entries."),
    limit: int = typer.Option(50, "--limit", min=1),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """The audit log: overrides of review rejections (with reasons) and human decisions."""
    from rich.table import Table

    from acode.store.audit import AuditLog

    entries = AuditLog(ProjectPaths(project_root()).db_file).entries(session, limit)
    if json_out:
        print_json(entries)
        return
    if not entries:
        console.print("no audit entries")
        return
    table = Table("time", "kind", "session", "decision", "actor", "reason")
    for e in entries:
        table.add_row(e["at"], e["kind"], e["session_id"], e["decision"], e["actor"], e["reason"])
    console.print(table)


def stats(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Metrics of stored runs: approval rate, cycles per task, common issue categories."""
    from acode.pipeline.metrics import compute_metrics
    from acode.store.summaries import SummaryStore

    metrics = compute_metrics(SummaryStore(ProjectPaths(project_root()).db_file).list())
    if json_out:
        print_json(metrics)
        return
    rate = metrics["approval_rate"]
    console.print(f"runs: {metrics['runs']} (finished {metrics['finished']})")
    console.print(
        f"approval rate: {'-' if rate is None else f'{rate:.0%}'} · overridden: {metrics['overridden']}"
    )
    console.print(f"cycles per task: {metrics['cycles_per_task'] or '-'}")
    for item in metrics["common_issue_categories"]:
        console.print(f"  {item['category']}: {item['count']}")
