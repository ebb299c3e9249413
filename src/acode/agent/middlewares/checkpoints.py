"""Checkpoints: before each approved edit, the touched files are saved under
``.acode/checkpoints/<session>/<seq>/`` so ``/restore [N]`` can undo the last N edits. A file that the
edit created is removed on restore. Snapshots are taken in ``before_tool`` (which runs after approval)
and kept only when the edit succeeded."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from acode.agent.loop.middleware import AgentState, Middleware, ToolDecision
from acode.errors import UsageError
from acode.fsutil import atomic_write_bytes, atomic_write_json
from acode.llm.types import ToolCall
from acode.tools.base import ToolResult

log = logging.getLogger("acode.checkpoints")

EDIT_TOOLS = frozenset({"write_file", "replace"})
PATH_KEYS = ("file_path", "path", "absolute_path")


@dataclass
class FileSnapshot:
    path: Path
    content: bytes | None  # None: the file did not exist before the edit


@dataclass
class RestoredEdit:
    seq: int
    tool: str
    restored: list[str]
    removed: list[str]


class CheckpointStore:
    def __init__(self, root: Path, *, keep: int = 50):
        self.root = root
        self.keep = keep

    def _dirs(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        return sorted(
            (d for d in self.root.iterdir() if d.is_dir() and d.name.isdigit()), key=lambda d: int(d.name)
        )

    def count(self) -> int:
        return len(self._dirs())

    def save(self, tool: str, snapshots: list[FileSnapshot]) -> int:
        dirs = self._dirs()
        seq = int(dirs[-1].name) + 1 if dirs else 1
        folder = self.root / f"{seq:06d}"
        files = []
        for index, snap in enumerate(snapshots):
            blob = None
            if snap.content is not None:
                blob = f"{index}.bin"
                atomic_write_bytes(folder / blob, snap.content)
            files.append({"path": str(snap.path), "existed": snap.content is not None, "blob": blob})
        created = datetime.now(UTC).isoformat()
        atomic_write_json(
            folder / "manifest.json", {"seq": seq, "tool": tool, "created": created, "files": files}
        )
        for old in self._dirs()[: -self.keep]:
            shutil.rmtree(old, ignore_errors=True)
        return seq

    def list(self) -> list[dict]:
        return [
            json.loads((d / "manifest.json").read_text())
            for d in self._dirs()
            if (d / "manifest.json").is_file()
        ]

    def restore(self, n: int = 1) -> list[RestoredEdit]:
        """Undo the newest ``n`` edits, newest first."""
        dirs = self._dirs()
        if n < 1:
            raise UsageError("ACODE-CKPT-001", f"/restore needs a positive number of edits, not {n}")
        if not dirs:
            raise UsageError(
                "ACODE-CKPT-002",
                "there is no edit to restore in this session",
                hint="/restore undoes edits made by the agent",
            )
        done = []
        for folder in reversed(dirs[-n:]):
            manifest = json.loads((folder / "manifest.json").read_text())
            restored, removed = [], []
            for entry in manifest["files"]:
                target = Path(entry["path"])
                if entry["existed"]:
                    atomic_write_bytes(target, (folder / entry["blob"]).read_bytes())
                    restored.append(str(target))
                elif target.exists():
                    target.unlink()
                    removed.append(str(target))
            shutil.rmtree(folder, ignore_errors=True)
            done.append(RestoredEdit(manifest["seq"], manifest["tool"], restored, removed))
            log.info("restored checkpoint %s (%s): %s", manifest["seq"], manifest["tool"], restored + removed)
        return done


class Checkpoints(Middleware):
    name = "checkpoints"

    def __init__(self, workspace: Path, *, keep: int = 50, edit_tools: frozenset[str] = EDIT_TOOLS):
        self.workspace = workspace.resolve()
        self.keep = keep
        self.edit_tools = edit_tools
        self.store: CheckpointStore | None = None
        self._pending: dict[str, list[FileSnapshot]] = {}

    def on_session_start(self, state: AgentState) -> None:
        self.store = CheckpointStore(
            self.workspace / ".acode" / "checkpoints" / state.session_id, keep=self.keep
        )

    def before_tool(self, state: AgentState, call: ToolCall) -> ToolDecision | None:
        if call.name not in self.edit_tools:
            return None
        paths = self._targets(call)
        if paths:
            self._pending[call.id] = [snap for snap in map(_snapshot, paths) if snap is not None]
        return None

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> ToolResult | None:
        snapshots = self._pending.pop(call.id, None)
        if snapshots is None or not result.ok:
            return None
        if self.store is None:
            self.on_session_start(state)
        assert self.store is not None
        self.store.save(call.name, snapshots)
        return None

    def restore(self, n: int = 1) -> list[RestoredEdit]:
        if self.store is None:
            raise UsageError("ACODE-CKPT-003", "no session is running, so there is nothing to restore")
        return self.store.restore(n)

    def _targets(self, call: ToolCall) -> list[Path]:
        out = []
        for key in PATH_KEYS:
            value = call.arguments.get(key)
            if isinstance(value, str) and value:
                path = Path(value)
                try:
                    path = (path if path.is_absolute() else self.workspace / path).resolve()
                except (OSError, RuntimeError, ValueError):
                    break  # the tool itself reports the bad path to the model
                if (self.workspace / ".acode") in path.parents:
                    continue  # plan files and other acode state are not the user's code
                out.append(path)
                break
        return out


def _snapshot(path: Path) -> FileSnapshot | None:
    """The file's bytes before an edit (None content: it did not exist); None when it cannot be read
    (the tool reports why)."""
    try:
        return FileSnapshot(path, path.read_bytes() if path.is_file() else None)
    except (OSError, ValueError):
        return None
