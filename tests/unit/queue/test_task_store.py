"""The task store: creation, ordering, atomic claims under contention, crash recovery, corrupt files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from acode.errors import UsageError
from acode.queue.store import TaskLock, TaskStore
from acode.queue.worker import TaskOutcome, run_next


@pytest.fixture
def store(tmp_path) -> TaskStore:
    return TaskStore(tmp_path / ".acode" / "agents")


def test_create_writes_state_plan_and_log(store):
    task = store.create("coder-agent", "create math_utils.py")
    data = json.loads(store.layout.state_file(task.task_id).read_text())
    assert data["taskId"] == task.task_id
    assert data["status"] == "pending"
    assert data["agent"] == "coder-agent" and data["prompt"] == "create math_utils.py"
    assert data["planFile"].endswith(f"plans/{task.task_id}_plan.md")
    assert data["logFile"].endswith(f"logs/{task.task_id}.log")
    assert data["createdAt"]
    assert Path(data["planFile"]).read_text() == "# Plan for coder-agent - create math_utils.py\n"
    assert Path(data["logFile"]).exists()
    assert store.layout.workspace.is_dir()


def test_ids_are_unique_within_one_second(store):
    ids = {store.create("a", f"p{i}").task_id for i in range(300)}
    assert len(ids) == 300
    assert len(list(store.layout.tasks.glob("*.json"))) == 300


def test_oldest_pending_is_claimed_first(store):
    first = store.create("a", "one")
    store.create("a", "two")
    claimed, lock = store.claim_next()
    try:
        assert claimed.task_id == first.task_id
        assert claimed.status == "running" and claimed.worker_pid == os.getpid() and claimed.started_at
        assert store.load(first.task_id).status == "running"
    finally:
        lock.release()


def test_a_locked_task_is_skipped(store):
    first = store.create("a", "one")
    second = store.create("a", "two")
    other = TaskLock(store.layout.lock_file(first.task_id))
    assert other.acquire()  # as if another worker were claiming it right now
    try:
        claimed, lock = store.claim_next()
        assert claimed.task_id == second.task_id
        lock.release()
    finally:
        other.release()


def test_corrupt_state_file_is_reported_by_name_and_skipped(store):
    good = store.create("a", "fine")
    bad = store.layout.tasks / "20200101-000000-deadbeef.json"
    bad.write_text("{not json")
    (store.layout.tasks / "20200101-000000-cafecafe.json").write_text(json.dumps({"taskId": "x"}))
    tasks, problems = store.scan()
    assert [t.task_id for t in tasks] == [good.task_id]
    assert sorted(p.path.name for p in problems) == ["20200101-000000-cafecafe.json", bad.name]
    assert all(str(p.path) in p.message for p in problems)
    claimed, lock = store.claim_next()
    assert claimed.task_id == good.task_id
    lock.release()


def test_runner_outcomes_are_recorded(store):
    ok = store.create("a", "works")
    bad = store.create("a", "breaks")
    boom = store.create("a", "crashes")

    def runner(task, layout, should_abort):
        if task.prompt == "crashes":
            raise RuntimeError("agent bug")
        return TaskOutcome(task.prompt == "works", result="done", error="it broke")

    states = [run_next(store, runner) for _ in range(3)]
    assert [s.task_id for s in states] == [ok.task_id, bad.task_id, boom.task_id]
    assert store.load(ok.task_id).status == "complete" and store.load(ok.task_id).completed_at
    assert store.load(bad.task_id).status == "failed" and store.load(bad.task_id).error == "it broke"
    assert store.load(boom.task_id).error == "RuntimeError: agent bug"
    assert run_next(store, runner) is None
    assert "run by pid" in Path(ok.log_file).read_text()


def test_a_claimed_attempt_is_in_the_log_before_the_task_shows_running(store):
    """A worker killed right after its claim (before it runs anything) still leaves its attempt's line:
    the log and the attempt count agree (the queue stress test once saw 2 attempts and 1 line)."""
    task = store.create("a", "x")
    claimed, lock = store.claim_next()
    lock.release()  # the worker dies here: nothing of run_next has happened
    assert claimed.status == "running" and claimed.attempts == 1
    assert Path(task.log_file).read_text().count(f"run by pid {os.getpid()} (attempt 1)") == 1


def test_cancel_and_retry(store):
    task = store.create("a", "x")
    assert store.cancel(task.task_id).status == "cancelled"
    with pytest.raises(UsageError):
        store.cancel(task.task_id)
    assert store.claim_next() is None
    again = store.retry(task.task_id)
    assert again.status == "pending" and again.error is None
    with pytest.raises(UsageError):
        store.retry(task.task_id)
    with pytest.raises(UsageError, match="no task"):
        store.load("nope")


def test_cancel_of_a_running_task_reaches_the_runner(store):
    task = store.create("a", "long")
    seen = []

    def runner(state, layout, should_abort):
        store.cancel(state.task_id)  # from "another terminal" while the lock is held
        seen.append(should_abort())
        return TaskOutcome(False, error="aborted")

    final = run_next(store, runner)
    assert seen == [True]
    assert final.status == "cancelled"
    assert store.load(task.task_id).status == "cancelled"


CLAIMER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from acode.queue.store import TaskStore
    store = TaskStore(Path(sys.argv[1]))
    out = Path(sys.argv[2])
    while True:
        claimed = store.claim_next()
        if claimed is None:
            break
        state, lock = claimed
        with out.open("a") as h:
            h.write(state.task_id + "\\n")
        time.sleep(0.01)
        store.finish(state, ok=True)
        lock.release()
    """
)


def test_claims_are_exclusive_under_contention(store, tmp_path):
    ids = {store.create("a", f"t{i}").task_id for i in range(40)}
    record = tmp_path / "claims.txt"
    procs = [
        subprocess.Popen([sys.executable, "-c", CLAIMER, str(store.layout.base), str(record)])
        for _ in range(6)
    ]
    assert [p.wait(timeout=120) for p in procs] == [0] * 6
    claimed = record.read_text().split()
    assert sorted(claimed) == sorted(ids)  # every task exactly once
    assert {t.status for t in store.scan()[0]} == {"complete"}


HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from acode.queue.store import TaskStore
    store = TaskStore(Path(sys.argv[1]))
    state, lock = store.claim_next()
    print(state.task_id, flush=True)
    time.sleep(600)
    """
)


def _claim_in_child(store) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(store.layout.base)], stdout=subprocess.PIPE, text=True
    )
    return proc, proc.stdout.readline().strip()


def test_task_of_a_killed_worker_is_requeued_then_failed_after_max_attempts(tmp_path):
    store = TaskStore(tmp_path / "agents", max_attempts=2)
    task = store.create("a", "x")
    for attempt in (1, 2):
        proc, claimed_id = _claim_in_child(store)
        assert claimed_id == task.task_id
        assert store.recover_stale() == []  # alive: left alone
        assert store.load(task.task_id).status == "running"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        recovered = store.recover_stale()
        assert [t.task_id for t in recovered] == [task.task_id]
        state = store.load(task.task_id)
        assert state.attempts == attempt
        if attempt == 1:
            assert state.status == "pending" and f"pid {proc.pid} died" in state.error
        else:
            assert state.status == "failed" and "gave up after 2 attempts" in state.error
    assert "died while running" in Path(task.log_file).read_text()


def test_status_scan_survives_a_state_file_being_replaced_concurrently(store):
    import threading

    task = store.create("a", "x")
    stop = threading.Event()

    def rewrite():
        while not stop.is_set():
            store.save(store.load(task.task_id))

    writer = threading.Thread(target=rewrite)
    writer.start()
    try:
        deadline = time.time() + 1.0
        while time.time() < deadline:  # atomic writes: a reader never sees a half-written file
            tasks, problems = store.scan()
            assert problems == [] and len(tasks) == 1
    finally:
        stop.set()
        writer.join()
