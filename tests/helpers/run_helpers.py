"""Shared by the pipeline tests (reviewer answers carry every key the engine's finding schemas have used;
pydantic ignores the ones the current schema does not ask for): a small repository, its config, and
scripted-model answers for the planner (JSON), the executor (tool calls, then a plain answer) and the
reviewer (findings JSON, then the yes/no check of each finding)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from acode.config import load_settings
from acode.paths import ProjectPaths
from acode.pipeline.human import HumanGate
from acode.pipeline.orchestrator import RunOutcome, start_run
from acode.tools.builtin import default_registry

TASK = "add a function is_even(n) to util.py and a pytest test for it"
UTIL = "def add(a, b):\n    return a + b\n"
GOOD_UTIL = UTIL + "\n\ndef is_even(n):\n    return n % 2 == 0\n"
BAD_UTIL = UTIL + "\n\ndef is_even(n):\n    return n % 2 == 1\n"
TEST_UTIL = (
    "from util import is_even\n\n\ndef test_is_even():\n    assert is_even(2)\n    assert not is_even(3)\n"
)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    (path / "README.md").write_text("# sample\n")
    (path / "util.py").write_text(UTIL)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial commit")
    return path


def write_config(root: Path, script: list[Any] | None = None, **sections: dict[str, Any]) -> None:
    """.acode/config.yml: the scripted backend (when a script is given) and a one-call reviewer."""
    config: dict[str, Any] = {
        "reviewer": {"strategy": "single_call", "lookaround": {"enabled": False}},
        # these scripts drive the executor's tool loop; whole-file steps have their own tests
        "pipeline": {"whole_file_steps": False},
    }
    for name, values in sections.items():
        config.setdefault(name, {}).update(values)
    if script is not None:
        script_file = root / ".acode" / "script.yml"
        script_file.parent.mkdir(parents=True, exist_ok=True)
        script_file.write_text(yaml.safe_dump(script, sort_keys=False))
        config["model"] = {"backend": "scripted", "script": str(script_file)}
    ProjectPaths(root).config_file.parent.mkdir(parents=True, exist_ok=True)
    ProjectPaths(root).config_file.write_text(yaml.safe_dump(config, sort_keys=False))


# -- scripted answers ---------------------------------------------------------------------------
def plan(*descriptions: str, check_command: str = "") -> dict:
    steps = [
        {"description": d, "check": "the tests pass", "check_command": check_command} for d in descriptions
    ]
    return {"json": {"summary": "add is_even with a test", "steps": steps}}


def write(path: str, content: str) -> dict:
    return {"tool": "write_file", "arguments": {"file_path": path, "content": content}}


def approve() -> list[Any]:
    """A doubtful line the check then dismisses: the review approves (the engine asks for at least one
    candidate finding, so "no findings" is not an answer it accepts)."""
    doubt = {
        "dimension": "code_quality",
        "file": "util.py",
        "line_number": 5,
        "line": "def is_even(n):",
        "problem": "could be wrong",
        "severity": "low",
        "suggestion": "double-check",
    }
    return [{"json": {"findings": [doubt]}}, "no"]


def reject(line: str, problem: str, suggestion: str, line_number: int = 6) -> list[Any]:
    finding = {
        "dimension": "code_quality",
        "file": "util.py",
        "line_number": line_number,
        "line": line,
        "problem": problem,
        "severity": "high",
        "suggestion": suggestion,
    }
    return [{"json": {"findings": [finding]}}, "yes"]


def good_execution() -> list[Any]:
    return [write("util.py", GOOD_UTIL), write("test_util.py", TEST_UTIL), "Added is_even and its test."]


def run_python(root: Path, model, **kw) -> RunOutcome:
    """The pipeline through its Python API, non-interactive unless a HumanGate says otherwise."""
    settings = load_settings(root, overrides=kw.pop("overrides", None))
    human = kw.pop("human", None) or HumanGate(
        policy=settings.reviewer.human_review,
        interactive=False,
        override_reason=kw.pop("override_reason", None),
        approve_flag=kw.pop("approve", False),
    )
    return start_run(
        root,
        kw.pop("task", TASK),
        settings=settings,
        model=model,
        tools=default_registry(),
        human=human,
        db_path=ProjectPaths(root).db_file,
        **kw,
    )


def run_cli(root: Path, *args: str, timeout: float = 120, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acode", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def events(root: Path, session_id: str) -> list[dict]:
    path = ProjectPaths(root).acode_dir / "runs" / session_id / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]
