"""The task store: state files, plan and log files, and the per-task lock that makes claiming atomic.

Claiming uses an exclusive ``flock`` on ``locks/<task_id>.lock`` held for as long as the task runs. The
kernel drops the lock when its process dies, so a task whose state says ``running`` but whose lock can
be taken was left behind by a dead worker: it is re-queued (or failed after ``MAX_ATTEMPTS``). State
files are only changed while holding the task's lock, and always written atomically (temp + rename).
Lock files are never deleted: deleting a lock file that another process has open is a classic race.

State files are input like any other file in a repository: a task id must be a plain name (no ``/``,
``..``), and a state file's ``taskId``, ``planFile`` and ``logFile`` must name its own files inside
``.acode/agents/``; anything else is reported as a broken task and never read or written through.
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from acode.errors import AcodeError, UsageError
from acode.fsutil import atomic_write_json, atomic_write_text, open_private
from acode.queue.model import TaskState, new_task_id, now_iso

log = logging.getLogger("acode.queue")

MAX_ATTEMPTS = 3
TASK_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$")


class QueueError(AcodeError):
    pass


class CorruptTaskError(QueueError):
    pass


def check_task_id(task_id: str) -> str:
    """``task_id`` if it is a plain name (letters, digits, ``-``, ``_``), else a usage error."""
    if not isinstance(task_id, str) or not TASK_ID.match(task_id):
        raise UsageError(
            "ACODE-QUEUE-011", f"{task_id!r} is not a task id",
            hint="task ids look like 20250101-120000-3f9a1c2b (`acode agent status` lists them)",
        )
    return task_id


def _inside(path: str | Path, folder: Path) -> bool:
    real, base = os.path.realpath(path), os.path.realpath(folder)
    return real.startswith(base.rstrip(os.sep) + os.sep)


@dataclass(frozen=True)
class Problem:
    """A state file that could not be read; reported by name and skipped."""

    path: Path
    message: str


@dataclass(frozen=True)
class QueueLayout:
    base: Path  # <project>/.acode/agents

    @property
    def tasks(self) -> Path:
        return self.base / "tasks"

    @property
    def plans(self) -> Path:
        return self.base / "plans"

    @property
    def logs(self) -> Path:
        return self.base / "logs"

    @property
    def workspace(self) -> Path:
        return self.base / "workspace"

    @property
    def locks(self) -> Path:
        return self.base / "locks"

    def state_file(self, task_id: str) -> Path:
        return self.tasks / f"{check_task_id(task_id)}.json"

    def plan_file(self, task_id: str) -> Path:
        return self.plans / f"{check_task_id(task_id)}_plan.md"

    def log_file(self, task_id: str) -> Path:
        return self.logs / f"{check_task_id(task_id)}.log"

    def lock_file(self, task_id: str) -> Path:
        return self.locks / f"{check_task_id(task_id)}.lock"

    def cancel_marker(self, task_id: str) -> Path:
        return self.locks / f"{check_task_id(task_id)}.cancel"

    def ensure(self) -> None:
        from acode.paths import ensure_runtime_ignore

        ensure_runtime_ignore(self.base.parent)
        for folder in (self.tasks, self.plans, self.logs, self.workspace, self.locks):
            folder.mkdir(parents=True, exist_ok=True)


class TaskLock:
    """An exclusive, non-blocking flock on one task. Released on close or when the process dies."""

    def __init__(self, path: Path):
        self.path = path
        self._fd: int | None = None

    def acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


@contextmanager
def try_lock(path: Path) -> Iterator[TaskLock | None]:
    lock = TaskLock(path)
    held = lock.acquire()
    try:
        yield lock if held else None
    finally:
        lock.release()


class TaskStore:
    def __init__(self, base: Path, *, max_attempts: int = MAX_ATTEMPTS):
        self.layout = QueueLayout(base)
        self.max_attempts = max_attempts

    # ---- reading -------------------------------------------------------------------------------
    def load(self, task_id: str) -> TaskState:
        path = self.layout.state_file(task_id)
        if not path.is_file():
            raise UsageError(
                "ACODE-QUEUE-004",
                f"no task '{task_id}' (looked for {path})",
                hint="`acode agent status` lists the tasks",
            )
        return self._read(path)

    def _read(self, path: Path) -> TaskState:
        try:
            state = TaskState.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, ValidationError) as exc:
            first = str(exc).splitlines()[0][:200]
            raise CorruptTaskError(
                "ACODE-QUEUE-010",
                f"the task state file {path} is unreadable: {first}",
                hint="fix or delete that file; other tasks are unaffected",
            ) from None
        problem = self._foreign(state, path)
        if problem:
            raise CorruptTaskError("ACODE-QUEUE-012", f"the task state file {path} is refused: {problem}",
                                   hint="delete that file (it was not written by acode); other tasks are "
                                        "unaffected")
        return state

    def _foreign(self, state: TaskState, path: Path) -> str | None:
        """Why a state file cannot be trusted to name its own files, or None."""
        if not TASK_ID.match(state.task_id) or state.task_id != path.stem:
            return f"its taskId {state.task_id!r} is not its file name {path.stem!r}"
        if not _inside(state.plan_file, self.layout.plans):
            return f"its planFile {state.plan_file!r} is outside {self.layout.plans}"
        if not _inside(state.log_file, self.layout.logs):
            return f"its logFile {state.log_file!r} is outside {self.layout.logs}"
        return None

    def scan(self) -> tuple[list[TaskState], list[Problem]]:
        """Every readable task (oldest first) and every unreadable state file."""
        tasks: list[TaskState] = []
        problems: list[Problem] = []
        if not self.layout.tasks.is_dir():
            return tasks, problems
        for path in self.layout.tasks.glob("*.json"):
            try:
                tasks.append(self._read(path))
            except CorruptTaskError as exc:
                log.warning("%s", exc.message)
                problems.append(Problem(path, exc.message))
        tasks.sort(key=lambda t: (t.created_at, t.task_id))
        return tasks, problems

    # ---- writing -------------------------------------------------------------------------------
    def create(self, agent: str, prompt: str) -> TaskState:
        self.layout.ensure()
        for _ in range(20):
            task_id = new_task_id()
            state = TaskState(
                task_id=task_id,
                agent=agent,
                prompt=prompt,
                plan_file=str(self.layout.plan_file(task_id)),
                log_file=str(self.layout.log_file(task_id)),
            )
            if self._create_exclusive(self.layout.state_file(task_id), state):
                break
        else:  # pragma: no cover - 32 random bits colliding 20 times in one second
            raise QueueError("ACODE-QUEUE-001", "could not pick a unique task id")
        atomic_write_text(Path(state.plan_file), f"# Plan for {agent} - {prompt}\n")
        Path(state.log_file).touch()
        return state

    def _create_exclusive(self, path: Path, state: TaskState) -> bool:
        """Write a temp file, then hard-link it into place: complete on arrival, and never clobbers."""
        tmp = path.with_name(f".{path.name}.{os.getpid()}.new")
        atomic_write_json(tmp, state.to_json())
        try:
            os.link(tmp, path)
            return True
        except FileExistsError:
            return False
        finally:
            tmp.unlink(missing_ok=True)

    def save(self, state: TaskState) -> None:
        atomic_write_json(self.layout.state_file(state.task_id), state.to_json())

    # ---- claiming and finishing ------------------------------------------------------------------
    def claim_next(self) -> tuple[TaskState, TaskLock] | None:
        """Atomically take the oldest pending task; the caller holds the returned lock until done."""
        tasks, _ = self.scan()
        for task in tasks:
            if task.status != "pending":
                continue
            lock = TaskLock(self.layout.lock_file(task.task_id))
            if not lock.acquire():
                continue
            try:
                fresh = self.load(task.task_id)  # re-read under the lock: another worker may be done
            except AcodeError:
                lock.release()
                continue
            if fresh.status != "pending":
                lock.release()
                continue
            fresh.status = "running"
            fresh.started_at = now_iso()
            fresh.completed_at = None
            fresh.worker_pid = os.getpid()
            fresh.attempts += 1
            # the attempt is in the task's log before anyone can see the task running, so a worker killed
            # right after its claim still leaves its line
            with open_private(fresh.log_file) as handle:
                handle.write(f"\n=== {now_iso()} run by pid {os.getpid()} (attempt {fresh.attempts}) ===\n")
            self.save(fresh)
            return fresh, lock
        return None

    def finish(
        self, state: TaskState, *, ok: bool, result: str | None = None, error: str | None = None
    ) -> TaskState:
        """Record the outcome (the caller still holds the task's lock)."""
        marker = self.layout.cancel_marker(state.task_id)
        if marker.exists():
            state.status, state.error = "cancelled", error or "cancelled while running"
            marker.unlink(missing_ok=True)
        else:
            state.status = "complete" if ok else "failed"
            state.error = None if ok else (error or "failed")
        state.result = result
        state.completed_at = now_iso()
        self.save(state)
        return state

    def cancel_requested(self, task_id: str) -> bool:
        return self.layout.cancel_marker(task_id).exists()

    def recover_stale(self) -> list[TaskState]:
        """Re-queue (or fail) tasks left ``running`` by a worker that died. Returns those changed."""
        changed = []
        tasks, _ = self.scan()
        for task in tasks:
            if task.status != "running":
                continue
            with try_lock(self.layout.lock_file(task.task_id)) as lock:
                if lock is None:
                    continue  # a live worker holds it
                fresh = self.load(task.task_id)
                if fresh.status != "running":
                    continue
                why = f"worker pid {fresh.worker_pid} died while running the task (attempt {fresh.attempts})"
                log.warning("task %s: %s", fresh.task_id, why)
                if fresh.attempts >= self.max_attempts:
                    fresh.status, fresh.completed_at = "failed", now_iso()
                    fresh.error = f"{why}; gave up after {fresh.attempts} attempts"
                else:
                    fresh.status, fresh.error = "pending", why
                fresh.worker_pid = None
                self.save(fresh)
                self._append_log(fresh, f"[queue] {why}; now {fresh.status}\n")
                changed.append(fresh)
        return changed

    def cancel(self, task_id: str) -> TaskState:
        state = self.load(task_id)
        if state.finished:
            raise UsageError(
                "ACODE-QUEUE-005", f"task {task_id} is already {state.status}", hint="nothing to cancel"
            )
        with try_lock(self.layout.lock_file(task_id)) as lock:
            if lock is None:  # running in a live worker: ask it to stop at its next turn
                self.layout.locks.mkdir(parents=True, exist_ok=True)
                self.layout.cancel_marker(task_id).write_text(now_iso())
                return self.load(task_id)
            state = self.load(task_id)
            if state.finished:
                return state
            state.status, state.completed_at, state.error = "cancelled", now_iso(), "cancelled by the user"
            self.save(state)
            return state

    def retry(self, task_id: str) -> TaskState:
        with try_lock(self.layout.lock_file(task_id)) as lock:
            state = self.load(task_id)
            if lock is None or state.status in ("pending", "running"):
                raise UsageError(
                    "ACODE-QUEUE-006",
                    f"task {task_id} is {state.status}; only failed, cancelled or complete tasks can be "
                    "retried",
                )
            state.status, state.error, state.result = "pending", None, None
            state.started_at = state.completed_at = None
            state.worker_pid, state.attempts = None, 0
            self.layout.cancel_marker(task_id).unlink(missing_ok=True)
            self.save(state)
            return state

    def _append_log(self, state: TaskState, text: str) -> None:
        path = Path(state.log_file)
        path.parent.mkdir(parents=True, exist_ok=True)
        with open_private(path) as handle:
            handle.write(text)
