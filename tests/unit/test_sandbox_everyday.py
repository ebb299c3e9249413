"""Issue 50: the everyday paths still work inside the sandbox (scripted model): ``acode -p`` writes a script
and runs it, the fixer runs pytest, ``acode run`` verifies, a sub-agent runs a command. Each shows it ran
inside: the shell tool's frame says "sandboxed", or a check passes only where no token and no network
interface but loopback exist (and fails with ``sandbox: off``, so the check can fail). Folders live under
/var/tmp: the sandbox's /tmp is private."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from tests.helpers.run_helpers import (
    approve,
    events,
    good_execution,
    make_repo,
    plan,
    run_python,
    write_config,
)

from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.config import Settings
from acode.llm.scripted import ScriptedModel
from acode.sandbox import find_sandbox

SANDBOX, WHY_NOT = find_sandbox()
pytestmark = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")
QUIET = {name: {"enabled": False}
         for name in ("next_speaker", "compression", "loop_detection", "checkpoints")}
# passes only where GITHUB_TOKEN is not set and loopback is the only network interface
INSIDE_CHECK = ("python -c \"import os, sys; names = [l.split(':')[0].strip() for l in open('/proc/net/dev') "
                "if ':' in l]; sys.exit(0 if names == ['lo'] and 'GITHUB_TOKEN' not in os.environ else 1)\"")


@pytest.fixture
def base(monkeypatch):
    folder = Path(tempfile.mkdtemp(prefix="acode-sandbox-everyday-", dir="/var/tmp"))
    monkeypatch.setenv("GITHUB_TOKEN", "planted-token-value")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_one_shot_writes_a_script_and_runs_it(base):
    repo = make_repo(base / "repo")
    script = base / "script.yml"
    code = ("import os, pathlib\npathlib.Path('out.txt').write_text('made')\n"
            "print('hello', os.environ.get('GITHUB_TOKEN'))\n")
    script.write_text(yaml.safe_dump([
        {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": code}},
        {"tool": "run_shell_command", "arguments": {"command": f"{sys.executable} hello.py"}},
        "Created hello.py and ran it."]))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_NEXT_SPEAKER__ENABLED="false")
    out = subprocess.run([sys.executable, "-m", "acode", "-p", "create hello.py and run it", "--backend",
                          "scripted", "--approval-mode", "yolo", "--json"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 0, out.stderr
    shell = [s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool"][-1]
    assert "(in ., sandboxed)" in shell["output"] and "hello None" in shell["output"]
    assert (repo / "out.txt").read_text() == "made"


def test_the_fixer_runs_pytest_inside(base):
    repo = make_repo(base / "repo")
    (repo / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (repo / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    fixed = "def add(a, b):\n    return a + b\n"
    fix = {"test_command": f"{sys.executable} -m pytest -q -p no:cacheprovider", "line_edit_calls": 0,
           "token_budget": 0, "mutants": 0, "deletions": 0, "crash_edits": 0}
    settings = Settings.model_validate({**QUIET, "agent": {"fix": fix}})
    model = ScriptedModel([f"calc.py\n```python\n{fixed}```\n"])
    session = build_session(settings, repo, SessionOptions(approval_mode="yolo"), model=model)
    result = session.send("The tests in test_calc.py fail because calc.py has a bug. Fix the bug in calc.py.")
    session.close()
    assert result.ok and "passes now" in result.answer, result.message
    assert (repo / "calc.py").read_text() == fixed
    runs = [t for t in result.tool_steps() if t.name == "run_shell_command"]
    assert len(runs) == 2 and all("(in ., sandboxed)" in t.output for t in runs)
    assert "1 failed" in runs[0].output and "1 passed" in runs[1].output


@pytest.mark.parametrize("mode", ["workspace-write", "off"])
def test_acode_run_verifies_inside(base, mode):
    repo = make_repo(base / "repo")
    write_config(repo)
    model = ScriptedModel([plan("add is_even(n) to util.py and test_util.py"), *good_execution(), *approve()])
    outcome = run_python(repo, model, overrides={"pipeline.verify_commands": [INSIDE_CHECK],
                                                 "pipeline.max_verify_retries": 0, "sandbox.mode": mode})
    verified = [e["passed"] for e in events(repo, outcome.session_id) if e["event"] == "verification"]
    if mode == "off":  # as the user: the token is there, and so is the host's network
        assert verified == [False]
    else:
        assert verified == [True] and outcome.status == "approved"


def runner_agent(root: Path) -> None:
    """A project agent whose one tool is the shell (the built-in ones have none)."""
    (root / ".acode" / "agents").mkdir(parents=True)
    (root / ".acode" / "agents" / "runner.md").write_text(
        "---\nname: runner\ndescription: runs commands\ntools: run_shell_command\n---\n"
        "Run what you are asked.\n")


def test_a_sub_agent_runs_a_command_inside(base):
    repo = make_repo(base / "repo")
    runner_agent(repo)
    settings = Settings.model_validate({**QUIET, "agent": {"subagents": True}})
    model = ScriptedModel([
        {"tool": "invoke_agent", "arguments": {"agent_name": "runner", "prompt": "run env"}},
        {"tool": "run_shell_command", "arguments": {"command": "env > env.txt"}},
        {"tool": "complete_task", "arguments": {"result": "ran it"}},
        "The sub-agent ran it."])
    session = build_session(settings, repo, SessionOptions(approval_mode="yolo"), model=model)
    result = session.send("have a sub-agent run env")
    session.close()
    assert result.ok, result.message
    assert [t.name for t in result.tool_steps()] == ["invoke_agent"]
    seen = (repo / "env.txt").read_text()  # the sub-agent's command ran, without the planted token
    assert "PATH=" in seen and "GITHUB_TOKEN" not in seen


def test_a_queue_worker_runs_its_tasks_commands_inside(base):
    root = make_repo(base / "repo")
    runner_agent(root)
    script = base / "script.yml"
    script.write_text(yaml.safe_dump([
        {"tool": "run_shell_command", "arguments": {"command": "env > env.txt"}},
        {"tool": "complete_task", "arguments": {"result": "env.txt"}}]))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_AGENT__RULES__ALLOW_SHELL='["env"]')
    acode = [sys.executable, "-m", "acode", "agent"]
    for args in (["start", "runner", "save the environment"], ["run", "--backend", "scripted"]):
        done = subprocess.run([*acode, *args], cwd=root, env=env, capture_output=True, text=True, timeout=120,
                              stdin=subprocess.DEVNULL, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    seen = (root / ".acode" / "agents" / "workspace" / "env.txt").read_text()
    assert "PATH=" in seen and "GITHUB_TOKEN" not in seen
