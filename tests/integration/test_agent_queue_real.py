"""The task queue end to end with the real embedded 0.5B model, through the real `acode` commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from tests.helpers.one_shot import REAL_MODEL


def acode(cwd: Path, *args: str, timeout: float = 1800) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACODE_MODEL")}
    env["ACODE_MODEL__CONTEXT_WINDOW"] = "4096"
    env["ACODE_MODEL__MAX_TOKENS"] = "300"  # a small file fits; bounds a turn on a busy 2-core machine
    env["ACODE_MODEL__TIMEOUT_SECONDS"] = "900"
    return subprocess.run([sys.executable, "-m", "acode", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, timeout=timeout)


@pytest.mark.real_model
def test_coder_agent_creates_math_utils_in_its_workspace(tmp_path):
    project = tmp_path / "proj"
    (project / ".acode").mkdir(parents=True)
    started = acode(project, "agent", "start", "coder-agent", "create math_utils.py with add(a, b)")
    assert started.returncode == 0, started.stderr
    task_id = re.match(
        r"Task (\S+) created for agent 'coder-agent' and is now pending\.", started.stdout
    ).group(1)

    ran = acode(project, "agent", "run", "--model", REAL_MODEL)
    state = json.loads((project / ".acode/agents/tasks" / f"{task_id}.json").read_text())
    log = Path(state["logFile"]).read_text()
    assert ran.returncode == 0, f"{ran.stderr}\n{log}"
    assert f"Orchestrator finished task {task_id}." in ran.stdout
    assert state["status"] == "complete", log
    created = project / ".acode/agents/workspace/math_utils.py"
    assert created.is_file(), log
    assert not (project / "math_utils.py").exists()
    check = subprocess.run(
        [sys.executable, "-c", "from math_utils import add; print(add(2, 3))"],
        cwd=created.parent,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert check.stdout.strip().splitlines()[-1] == "5", created.read_text()
