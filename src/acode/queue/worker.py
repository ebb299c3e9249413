"""Workers: take the oldest pending task, run its agent, record the outcome. Several workers are
separate processes (``acode agent run`` each); the store's per-task lock keeps them apart."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acode.errors import AcodeError
from acode.fsutil import open_private
from acode.queue.model import TaskState, now_iso
from acode.queue.store import QueueLayout, TaskStore

log = logging.getLogger("acode.queue")


@dataclass
class TaskOutcome:
    ok: bool
    result: str = ""
    error: str | None = None


# runner(task, layout, should_abort) -> outcome. ``should_abort`` turns true when the task is cancelled.
TaskRunner = Callable[[TaskState, QueueLayout, Callable[[], bool]], TaskOutcome]


def run_next(store: TaskStore, runner: TaskRunner) -> TaskState | None:
    """Run the oldest pending task to its end; None when nothing is pending."""
    store.recover_stale()
    claimed = store.claim_next()
    if claimed is None:
        return None
    state, lock = claimed
    try:
        try:
            outcome = runner(state, store.layout, lambda: store.cancel_requested(state.task_id))
        except AcodeError as exc:
            outcome = TaskOutcome(False, error=str(exc))
        except KeyboardInterrupt:
            store.finish(state, ok=False, error="interrupted by the user")
            raise
        except Exception as exc:  # an agent bug fails this task, not the whole queue
            log.exception("task %s crashed", state.task_id)
            outcome = TaskOutcome(False, error=f"{type(exc).__name__}: {exc}")
        _log(state, f"=== {now_iso()} {'ok' if outcome.ok else 'failed: ' + str(outcome.error)} ===\n")
        return store.finish(state, ok=outcome.ok, result=outcome.result, error=outcome.error)
    finally:
        lock.release()


def drain(
    store: TaskStore, runner: TaskRunner, *, run_all: bool, on_done: Callable[[TaskState], None] | None = None
) -> list[TaskState]:
    done: list[TaskState] = []
    while True:
        state = run_next(store, runner)
        if state is None:
            break
        done.append(state)
        if on_done:
            on_done(state)
        if not run_all:
            break
    return done


def spawn_workers(
    count: int,
    root: Path,
    *,
    run_all: bool,
    echo: Callable[[str], None],
    global_args: list[str] | None = None,
    run_args: list[str] | None = None,
) -> int:
    """Run ``count`` worker processes in ``root`` and relay their output; the worst exit code wins."""
    command = [
        sys.executable,
        "-m",
        "acode",
        *(global_args or []),
        "agent",
        "run",
        "--worker",
        *(run_args or []),
    ]
    command += ["--all"] if run_all else []
    procs = [
        subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(count)
    ]
    lock = threading.Lock()

    def relay(proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            with lock:
                echo(line.rstrip("\n"))

    threads = [threading.Thread(target=relay, args=(p,), daemon=True) for p in procs]
    for thread in threads:
        thread.start()
    codes = [p.wait() for p in procs]
    for thread in threads:
        thread.join(timeout=5)
    return max(codes) if codes else 0


def _log(state: TaskState, text: str) -> None:
    with open_private(state.log_file) as handle:
        handle.write(text)
