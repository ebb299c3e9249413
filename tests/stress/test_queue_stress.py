"""Stress: 4 worker processes drain 40 tasks; each task runs exactly once and none is lost; a worker
killed with SIGKILL in the middle of a task is recovered from (its task is re-queued and finished).

Workers are real `acode agent run --all --workers 4` processes with the scripted backend: every model
call sleeps a little, so tasks overlap and one can be killed while it is running."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from acode.queue.store import TaskStore

TASKS = 40
STEP = {"sleep": 0.15, "tool": "complete_task", "arguments": {"result": "done"}}


def _env(script: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("ACODE_") or k in ("ACODE_CONFIG_HOME", "ACODE_CACHE_DIR")
    }
    env.update({"ACODE_MODEL__BACKEND": "scripted", "ACODE_MODEL__SCRIPT": str(script)})
    return env


def _kill_a_running_worker(
    store: TaskStore, orchestrator: subprocess.Popen, deadline: float
) -> tuple[str, int]:
    while time.time() < deadline and orchestrator.poll() is None:
        for task in store.scan()[0]:
            if task.status == "running" and task.worker_pid and task.worker_pid != orchestrator.pid:
                os.kill(task.worker_pid, signal.SIGKILL)
                return task.task_id, task.worker_pid
        time.sleep(0.01)
    pytest.fail("no task was seen running before the workers finished")


@pytest.mark.slow
def test_four_workers_drain_forty_tasks_and_survive_a_killed_worker(tmp_path):
    project = tmp_path / "proj"
    (project / ".acode").mkdir(parents=True)
    store = TaskStore(project / ".acode" / "agents")
    created = [store.create("coder-agent", f"task {i}").task_id for i in range(TASKS)]
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump([STEP] * TASKS))
    env = _env(script)

    orchestrator = subprocess.Popen(
        [sys.executable, "-m", "acode", "agent", "run", "--all", "--workers", "4"],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    killed_task, killed_pid = _kill_a_running_worker(store, orchestrator, time.time() + 120)
    first_output, _ = orchestrator.communicate(timeout=300)
    # the killed worker's task is either picked up by a surviving worker, or by the next run
    second = subprocess.run(
        [sys.executable, "-m", "acode", "agent", "run", "--all"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    finished = [
        line.split()[-1].rstrip(".")
        for line in (first_output + second.stdout).splitlines()
        if line.startswith("Orchestrator finished task")
    ]

    tasks = {t.task_id: t for t in store.scan()[0]}
    assert sorted(tasks) == sorted(created)  # none lost
    assert {t.status for t in tasks.values()} == {"complete"}, [
        (t.task_id, t.status, t.error) for t in tasks.values()
    ]
    assert sorted(finished) == sorted(created)  # each reported finished exactly once
    for task_id, task in tasks.items():
        runs = Path(task.log_file).read_text().count(" run by pid ")
        if task_id == killed_task:
            assert task.attempts == 2 and runs == 2
            assert f"worker pid {killed_pid} died" in Path(task.log_file).read_text()
        else:
            assert task.attempts == 1 and runs == 1, (task_id, task.attempts, runs)  # ran exactly once
    worker_pids = {t.worker_pid for t in tasks.values()}
    assert len(worker_pids) >= 2  # the work really was shared between processes
