"""The agent with the real embedded 0.5B model: `acode -p "create hello.py that prints hello, then run
it" --approval-mode yolo` in a temporary git repository, driven through constrained tool calls."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.helpers.one_shot import run_one_shot
from tests.helpers.repos import make_git_repo

from acode.paths import ProjectPaths
from acode.sandbox import find_sandbox
from acode.store.sessions import SessionStore


@pytest.mark.real_model
def test_one_shot_creates_hello_py_and_runs_it(tmp_path):
    # since -p no longer offers the plan-mode tools (issue 28 item 12) the 0.5B writes hello.py and answers
    # "Created hello.py and ran it" before running it: the loop's reminder (acode.agent.loop.requested_run)
    # is what makes it run the file
    # the CLI loads the model in its own process, exactly as a user runs it
    repo = make_git_repo(tmp_path / "repo")
    env = dict(os.environ)
    env.update({"ACODE_MODEL__MAX_TOKENS": "200", "ACODE_AGENT__MAX_TURNS": "6",
                "ACODE_MODEL__TIMEOUT_SECONDS": "1500"})
    out = run_one_shot(repo, "create hello.py that prints hello, then run it", env, timeout=1500)
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["stop_reason"] == "answer", (data["message"], out.stderr[-2000:])

    # the file exists and does what was asked
    hello = repo / "hello.py"
    assert hello.is_file(), data
    run = subprocess.run(
        [sys.executable, str(hello)], check=False, capture_output=True, text=True, timeout=30
    )
    assert run.returncode == 0 and "hello" in run.stdout.lower()

    # the model wrote it, then ran it, through tool calls
    tools = [s for s in data["trajectory"] if s["type"] == "tool" and s["ok"]]
    names = [t["name"] for t in tools]
    assert "write_file" in names and "run_shell_command" in names
    assert names.index("write_file") < len(names) - 1 - names[::-1].index("run_shell_command")
    shell = [t for t in tools if t["name"] == "run_shell_command"]
    assert any("hello.py" in t["arguments"]["command"] and "hello" in t["output"].lower() for t in shell)
    if find_sandbox()[0] is not None:  # issue 50: by default the model's commands run in the sandbox
        assert all("sandboxed)" in t["output"].splitlines()[1] for t in shell), shell
    model_steps = [s for s in data["trajectory"] if s["type"] == "model"]
    assert all(s["usage"]["prompt_tokens"] > 0 for s in model_steps)

    # and the session was recorded
    store = SessionStore(ProjectPaths(repo).db_file)
    events = store.events(data["session_id"], "tool")
    assert [e["name"] for e in events if e["ok"]] == names
