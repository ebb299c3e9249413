"""The run summary: task, session, status, verification (``verification_report``), changes (+ new,
~ modified, - deleted, with line counts), reviewer notes, per-dimension levels, decision, override, start,
end, duration. Built from the run state and git; rendered for people (rich) and machines (JSON).
Persisting it never calls a model."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from acode.gitcmd import GitError
from acode.pipeline import gitops
from acode.pipeline.models import RunState
from acode.pipeline.stops import RunError
from acode.pipeline.verification_report import describe
from acode.review.models import ChangedFile

_FINAL = {
    "approved": "APPROVED",
    "rejected": "REJECTED",
    "declined": "DECLINED",
    "timeout": "TIMEOUT",
    "failed": "FAILED",
    "interrupted": "INTERRUPTED",
    "running": "RUNNING",
}
_VERIFICATION_STYLE = {
    "passed": "green", "failing_before": "yellow", "not_run": "yellow", "failed": "bold red"
}
FILE_WIDTH = 100  # the summary box's width when not printed to a terminal
_LEVEL_STYLE = {
    "excellent": "green",
    "good": "green",
    "acceptable": "yellow",
    "needs_work": "red",
    "poor": "bold red",
}


def _change_row(change: ChangedFile) -> dict[str, Any]:
    """A changed file as the summary lists it (+ new, ~ modified, - deleted)."""
    kind = {"added": "new"}.get(change.change_type, change.change_type)
    return {"path": change.path, "kind": kind, "added": change.additions, "removed": change.deletions,
            "mark": {"new": "+", "modified": "~", "deleted": "-"}[kind]}


def build_summary(state: RunState, root: Path) -> dict[str, Any]:
    try:
        changes = [_change_row(c) for c in gitops.changes_since(root, state.start_commit)]
    except (RunError, GitError, OSError) as exc:  # a broken repository must not lose the rest of the summary
        changes = [
            {
                "path": f"(changes unavailable: {exc})",
                "kind": "modified",
                "mark": "?",
                "added": 0,
                "removed": 0,
            }
        ]
    review = state.last_review
    verification = state.verifications[-1] if state.verifications else None
    return {
        "session_id": state.session_id,
        "task": state.task,
        "status": state.status,
        "decision": _FINAL[state.status]
        + (" (override)" if state.override and state.status == "approved" else ""),
        "review_decision": review.decision if review else None,
        "exit_code": state.exit_code if state.exit_code is not None else 1,
        "cycles": state.cycle,
        "max_cycles": state.max_cycles,
        "plan_versions": len(state.plans),
        "start_commit": state.start_commit,
        "started_at": state.started_at,
        "ended_at": state.ended_at,
        "duration_s": _duration(state.started_at, state.ended_at),
        "changes": changes,
        "reviewer_notes": review.notes if review else "",
        "levels": review.levels if review else {},
        "issues": [i.model_dump() for i in review.issues] if review else [],
        "review_partial": bool(review and review.partial),
        "reviews": [
            {
                "cycle": r.cycle,
                "decision": r.decision,
                "levels": r.levels,
                "issue_dimensions": [i.dimension for i in r.issues],
                "review_id": r.review_id,
                "partial": r.partial,
            }
            for r in state.reviews
        ],
        "verification": describe(verification, len(state.verifications)),
        "steps": [
            {
                "index": s.index,
                "description": s.description,
                "status": s.status,
                "files_changed": s.files_changed,
                "duration_s": s.duration_s,
                "attempt": s.attempt,
            }
            for s in state.step_results
        ],
        "human": [h.model_dump() for h in state.human],
        "override": state.override,
        "error": state.error,
    }


def _duration(start: str, end: str | None) -> float | None:
    if not end:
        return None
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 2)


def changes_table(changes: list[dict[str, Any]]) -> Table:
    table = Table(show_header=False, box=None, padding=(0, 1))
    style = {"+": "green", "~": "yellow", "-": "red"}
    for change in changes:
        table.add_row(
            Text(change["mark"], style=style.get(change["mark"], "")),
            change["path"],
            Text(f"+{change['added']} -{change['removed']}", style="dim"),
        )
    if not changes:
        table.add_row("", Text("no changes", style="dim"), "")
    return table


def render_summary(summary: dict[str, Any], console: Console) -> None:
    decision = summary["decision"]
    color = "green" if decision.startswith("APPROVED") else "red"
    head = Table.grid(padding=(0, 2))
    head.add_row("Task", summary["task"])
    head.add_row("Session", summary["session_id"])
    head.add_row("Decision", Text(decision, style=f"bold {color}"))
    verification = summary.get("verification")
    if verification and "status" in verification:  # summaries stored before the status have no line
        head.add_row("Verification", Text(verification["headline"],
                                          style=_VERIFICATION_STYLE[verification["status"]]))
    elif not verification:
        head.add_row("Verification", Text("not reached", style="yellow"))
    head.add_row(
        "Cycles", f"{summary['cycles']} of {summary['max_cycles']} · plan v{summary['plan_versions']}"
    )
    when = f"{summary['started_at']} → {summary['ended_at'] or '…'}"
    if summary["duration_s"] is not None:
        when += f" ({summary['duration_s']:.1f} s)"
    head.add_row("Time", when)
    parts: list[Any] = [head, Text("\nChanges", style="bold"), changes_table(summary["changes"])]
    if verification and verification.get("lines"):
        parts.append(Text("\nVerification", style="bold"))
        parts += [Text(f"  • {line}") for line in verification["lines"][:8]]
    if summary["levels"]:
        levels = Table(show_header=False, box=None, padding=(0, 1))
        for name, level in summary["levels"].items():
            levels.add_row(name, Text(str(level), style=_LEVEL_STYLE.get(str(level), "dim")))
        parts += [
            Text("\nReview" + (" (partial)" if summary["review_partial"] else ""), style="bold"),
            levels,
        ]
    if summary["reviewer_notes"]:
        parts.append(Text(f"\n{summary['reviewer_notes']}"))
    for issue in summary["issues"][:8]:
        where = f" {issue['file']}:{issue['lines']}" if issue.get("file") else ""
        parts.append(Text(f"  • [{issue['dimension']}]{where} {issue['message']}"))
    if summary["override"]:
        parts.append(
            Text(f"\nOverride: {summary['override']['reason']} ({summary['override']['at']})", style="yellow")
        )
    if summary["error"]:
        parts.append(Text(f"\n{summary['error']}", style="red"))
    panel = Panel(Group(*parts), title="acode run", border_style=color, expand=console.is_terminal)
    # to a file or pipe the console is very wide (nothing wrapped at 80): the box keeps a readable width
    console.print(panel, width=None if console.is_terminal else min(console.width, FILE_WIDTH))
