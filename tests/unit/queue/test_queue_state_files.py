"""Issue 14 item 7: sub-agent task state files are untrusted input. Ids are plain names, and a state
file's planFile/logFile must be its own files inside .acode/agents/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ACODE = [sys.executable, "-m", "acode"]


def run(root: Path, *args: str, script: list | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, ACODE_NEXT_SPEAKER__ENABLED="false", COLUMNS="250")
    if script is not None:
        path = root.parent / "queue-script.yml"
        path.write_text(yaml.safe_dump(script))
        env.update(ACODE_MODEL__BACKEND="scripted", ACODE_MODEL__SCRIPT=str(path))
    return subprocess.run([*ACODE, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, check=False)


def task(task_id: str, plan: str, log: str) -> dict:
    return {"taskId": task_id, "status": "pending", "agent": "coder-agent", "prompt": "write x.py",
            "planFile": plan, "logFile": log, "createdAt": "2026-01-01T00:00:00+00:00", "attempts": 0}


def test_cancel_with_a_path_for_an_id_touches_nothing_outside_the_queue(tmp_path):
    root = tmp_path / "deep" / "er" / "proj"
    (root / ".acode").mkdir(parents=True)
    queue = root / ".acode" / "agents"
    outside = (queue / "tasks" / "../../../../x.json").resolve()  # where the traversal lands
    outside.write_text(json.dumps(task("x", str(queue / "plans/x_plan.md"), str(queue / "logs/x.log"))))
    before = outside.read_bytes()
    out = run(root, "agent", "cancel", "../../../../x")
    assert out.returncode == 2 and "ACODE-QUEUE-011" in out.stderr and "Traceback" not in out.stderr
    assert outside.read_bytes() == before
    assert not (queue / "locks").exists() or not any((queue / "locks").iterdir())


def test_a_state_file_pointing_outside_the_queue_is_refused_and_never_written_through(tmp_path):
    root = tmp_path / "proj"
    (root / ".acode").mkdir(parents=True)
    created = run(root, "agent", "start", "coder-agent", "write x.py")
    assert created.returncode == 0, created.stderr
    tasks = root / ".acode" / "agents" / "tasks"
    planted_plan, planted_log = tmp_path / "planted_plan.md", tmp_path / "planted.log"
    hostile = "20260101-000000-deadbeef"
    (tasks / f"{hostile}.json").write_text(json.dumps(task(hostile, str(planted_plan), str(planted_log))))
    lying = "20260101-000001-feedf00d"  # its id names another file
    (tasks / f"{lying}.json").write_text(json.dumps(task("../../escape", str(tasks.parent / "plans/p.md"),
                                                         str(tasks.parent / "logs/l.log"))))

    status = run(root, "agent", "status", "--json")
    assert status.returncode == 0, status.stderr
    data = json.loads(status.stdout)
    problems = " ".join(p["message"] for p in data["problems"])
    assert "planFile" in problems and "outside" in problems and "is not its file name" in problems
    listed = [t["taskId"] for t in data["tasks"]]
    assert hostile not in listed and "../../escape" not in listed and len(listed) == 1

    ran = run(root, "agent", "run", "--all", script=[
        {"tool": "update_plan", "arguments": {"content": "# Plan\n1. write x.py\n"}},
        {"tool": "complete_task", "arguments": {"result": "nothing to do"}},
    ] * 3)
    assert "Traceback" not in ran.stderr
    assert not planted_plan.exists() and not planted_log.exists()
    assert not (root / ".acode" / "escape.json").exists()
    cancel = run(root, "agent", "cancel", hostile)
    assert cancel.returncode != 0 and "ACODE-QUEUE-012" in cancel.stderr
