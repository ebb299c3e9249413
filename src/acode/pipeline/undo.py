"""The safety of the user's work: a run starts from a recorded commit (a clean tree unless
--allow-dirty), and ``acode run --undo SESSION`` puts the working tree back the way it was."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from acode.pipeline import gitops
from acode.pipeline.models import RunState
from acode.pipeline.stops import RunError

log = logging.getLogger("acode.pipeline")


@dataclass
class StartPoint:
    commit: str
    branch: str
    dirty_snapshot: str  # "" for a clean tree
    preexisting_untracked: list[str]


def record_start(root: Path, *, allow_dirty: bool) -> StartPoint:
    """The commit (and, with --allow-dirty, the uncommitted state) the run starts from."""
    commit = gitops.require_repository(root)
    dirty = gitops.dirty_paths(root)
    if dirty and not allow_dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise RunError(
            "ACODE-RUN-001",
            f"the working tree of {root} has uncommitted changes ({shown})",
            hint="commit or stash them first (so `acode run --undo` can restore a known state), or pass "
                 "--allow-dirty",
        )
    snapshot = gitops.git(root, "stash", "create").strip() if dirty else ""
    return StartPoint(
        commit, gitops.current_branch(root), snapshot, gitops.untracked_files(root) if dirty else []
    )


@dataclass
class UndoReport:
    restored_commit: str
    removed: list[str]
    reapplied_snapshot: bool


def undo_run(root: Path, state: RunState) -> UndoReport:
    """Tracked files back to the start commit, files the run created removed, a dirty start re-applied."""
    root = root.resolve()
    if Path(state.workspace).resolve() != root:
        raise RunError(
            "ACODE-RUN-010",
            f"session {state.session_id} ran in {state.workspace}, not in {root}",
            hint=f"cd {state.workspace} and run the undo there",
        )
    gitops.require_repository(root)
    created = [p for p in gitops.untracked_files(root) if p not in set(state.preexisting_untracked)]
    gitops.git(root, "reset", "-q", "--hard", state.start_commit)
    removed = []
    for rel in created:
        target = (root / rel).resolve()
        if root not in target.parents or not (target.is_file() or target.is_symlink()):
            log.warning("undo: not removing %s (outside the workspace or not a file)", rel)
            continue
        target.unlink()
        removed.append(rel)
        _remove_empty_parents(target.parent, root)
    if state.dirty_snapshot:
        gitops.git(root, "stash", "apply", "-q", state.dirty_snapshot)
    return UndoReport(state.start_commit, removed, bool(state.dirty_snapshot))


def _remove_empty_parents(folder: Path, root: Path) -> None:
    while folder != root and root in folder.parents and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent
