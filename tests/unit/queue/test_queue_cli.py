"""`acode agent ...`, `acode agents list`, `acode extensions list` end to end with the scripted model."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from acode.cli.main import app
from acode.errors import UsageError

cli = CliRunner()
CREATED = re.compile(r"^Task (\S+) created for agent '([^']+)' and is now pending\.$")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "proj"
    (root / ".acode").mkdir(parents=True)
    monkeypatch.chdir(root)
    return root


def use_script(monkeypatch, tmp_path: Path, steps: list) -> None:
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump(steps))
    monkeypatch.setenv("ACODE_MODEL__BACKEND", "scripted")
    monkeypatch.setenv("ACODE_MODEL__SCRIPT", str(script))


def start(agent: str, prompt: str) -> str:
    result = cli.invoke(app, ["agent", "start", agent, prompt])
    assert result.exit_code == 0, result.output
    match = CREATED.match(result.output.strip())
    assert match and match.group(2) == agent
    return match.group(1)


def state(project: Path, task_id: str) -> dict:
    return json.loads((project / ".acode/agents/tasks" / f"{task_id}.json").read_text())


def test_start_then_run_writes_inside_the_workspace(project, tmp_path, monkeypatch):
    task_id = start("coder-agent", "create math_utils.py with add(a, b)")
    plan = project / f".acode/agents/plans/{task_id}_plan.md"
    assert plan.read_text() == "# Plan for coder-agent - create math_utils.py with add(a, b)\n"
    use_script(
        monkeypatch,
        tmp_path,
        [
            {
                "tool": "write_file",
                "arguments": {"file_path": str(plan), "content": "# Plan\n1. write math_utils.py\n"},
            },
            {"tool": "write_file", "arguments": {"file_path": "../../../escape.py", "content": "x = 1\n"}},
            {
                "tool": "write_file",
                "arguments": {"file_path": str(tmp_path / "outside.py"), "content": "x = 1\n"},
            },
            {
                "tool": "write_file",
                "arguments": {"file_path": "math_utils.py", "content": "def add(a, b):\n    return a + b\n"},
            },
            {"tool": "complete_task", "arguments": {"result": "math_utils.py"}},
        ],
    )
    result = cli.invoke(app, ["agent", "run"])
    assert result.exit_code == 0, result.output
    assert f"Orchestrator finished task {task_id}." in result.output
    workspace = project / ".acode/agents/workspace"
    assert (workspace / "math_utils.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert not (project / "escape.py").exists() and not (project / "math_utils.py").exists()
    assert not (tmp_path / "outside.py").exists()
    assert plan.read_text() == "# Plan\n1. write math_utils.py\n"  # the plan file is the one writable extra
    data = state(project, task_id)
    assert data["status"] == "complete" and data["result"] == "math_utils.py"
    assert data["startedAt"] and data["completedAt"] and data["workerPid"]
    log = Path(data["logFile"]).read_text()
    assert "outside the workspace" in log and "calls complete_task" in log and "termination=goal" in log
    assert cli.invoke(app, ["agent", "run"]).output.strip() == "No pending agent tasks found."


def test_unknown_agent_is_a_usage_error_listing_the_known_ones(project):
    result = cli.invoke(app, ["agent", "start", "nobody", "x"])
    assert isinstance(result.exception, UsageError) and "coder-agent" in result.exception.hint
    done = subprocess.run(
        [sys.executable, "-m", "acode", "agent", "start", "nobody", "x"],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
    )
    assert done.returncode == 2
    assert "unknown agent 'nobody'" in done.stderr and "codebase_investigator" in done.stderr
    assert "Traceback" not in done.stderr


def test_run_all_drains_and_a_task_without_complete_task_fails(project, tmp_path, monkeypatch):
    first = start("coder-agent", "one")
    second = start("reviewer-agent", "two")
    use_script(
        monkeypatch,
        tmp_path,
        [
            {"tool": "complete_task", "arguments": {"result": "did one"}},
            "I reviewed it.",
            "Done.",  # answers without complete_task: nudged once, then failed
        ],
    )
    result = cli.invoke(app, ["agent", "run", "--all"])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("Orchestrator")]
    assert lines == [f"Orchestrator finished task {first}.", f"Orchestrator finished task {second}."]
    assert state(project, first)["status"] == "complete"
    failed = state(project, second)
    assert failed["status"] == "failed" and failed["error"].startswith("no_complete_task")


def test_status_show_cancel_retry(project):
    first = start("coder-agent", "a prompt that is rather long " * 4)
    second = start("reviewer-agent", "review math_utils.py")
    (project / ".acode/agents/tasks/20200101-000000-badbadba.json").write_text("{broken")
    table = cli.invoke(app, ["agent", "status"])
    assert table.exit_code == 0
    for heading in ("Task ID", "Agent", "Status", "Created At", "Prompt"):
        assert heading in table.output
    assert (
        first in table.output and second in table.output and "20200101-000000-badbadba.json" in table.output
    )
    data = json.loads(cli.invoke(app, ["agent", "status", "--json"]).stdout)
    assert [t["taskId"] for t in data["tasks"]] == [first, second]
    assert data["problems"][0]["file"].endswith("20200101-000000-badbadba.json")
    shown = json.loads(cli.invoke(app, ["agent", "show", second, "--json"]).stdout)
    assert shown["plan"].startswith("# Plan for reviewer-agent - review math_utils.py")
    assert cli.invoke(app, ["agent", "cancel", second]).output.strip() == f"Task {second} cancelled."
    assert state(project, second)["status"] == "cancelled"
    assert cli.invoke(app, ["agent", "retry", second]).output.strip() == f"Task {second} is pending again."
    assert state(project, second)["status"] == "pending"
    assert isinstance(cli.invoke(app, ["agent", "show", "nope"]).exception, UsageError)


def test_agents_and_extensions_lists(project):
    (project / ".acode/agents").mkdir()
    (project / ".acode/agents/tester.md").write_text(
        "---\ndescription: Writes tests\ntools: [read_file]\n---\nYou test."
    )
    ext = project / ".acode/extensions"
    ext.mkdir()
    (ext / "pirate.json").write_text(json.dumps({"name": "pirate", "version": "2.0.0", "prompt": "Arr."}))
    (ext / "quiet.json").write_text(json.dumps({"name": "quiet"}))
    agents = json.loads(cli.invoke(app, ["agents", "list", "--json"]).stdout)["agents"]
    names = {a["name"]: a for a in agents}
    assert (
        names["tester"]["tools"] == ["read_file"] and "pirate" in names and "codebase_investigator" in names
    )
    without = json.loads(cli.invoke(app, ["-e", "none", "agents", "list", "--json"]).stdout)["agents"]
    assert "pirate" not in {a["name"] for a in without}
    rows = json.loads(cli.invoke(app, ["-e", "quiet", "extensions", "list", "--json"]).stdout)["extensions"]
    assert {r["name"]: r["enabled"] for r in rows} == {"pirate": False, "quiet": True}
    assert "pirate" in cli.invoke(app, ["extensions", "list"]).output
    assert start("pirate", "say hi")
