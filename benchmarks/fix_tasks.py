"""HumanEvalFix-style bug-fix tasks for benchmarks/fix_success.py, built from
../shared/data/humanevalpack-python.jsonl: the file is the task's prompt (signature and docstring) plus
its buggy solution, the visible test file is its example_test as a pytest test, and the hidden check
(which decides success and is never shown to anyone) is the full `test`."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "humanevalpack-python.jsonl"
PROMPT = ("The tests in {test} fail because {module} has a bug. Fix the bug in {module} so that the tests "
          "pass (run them with: python -m pytest -q). Do not change the tests.")


@dataclass
class FixTask:
    task_id: str
    number: int
    entry_point: str
    source: str  # the buggy file
    visible_test: str
    hidden_test: str

    @property
    def module(self) -> str:
        return f"{self.entry_point}.py"

    @property
    def test_file(self) -> str:
        return f"test_{self.entry_point}.py"

    @property
    def prompt(self) -> str:
        return PROMPT.format(test=self.test_file, module=self.module)


def _visible_test(row: dict) -> str:
    lines = row["example_test"].rstrip().splitlines()
    entry = row["entry_point"]
    if lines and lines[-1].strip().startswith(f"check({entry})"):
        lines = lines[:-1]
    return (f"from {entry} import {entry}\n\n\n" + "\n".join(lines).rstrip()
            + f"\n\n\ndef test_examples():\n    check({entry})\n")


def load_tasks(path: Path = DATA, half: str = "all") -> list[FixTask]:
    tasks = []
    for line in path.read_text().splitlines():
        row = json.loads(line)
        number = int(row["task_id"].split("/")[1])
        if (half == "even" and number % 2) or (half == "odd" and not number % 2):
            continue
        tasks.append(FixTask(row["task_id"], number, row["entry_point"],
                             row["prompt"] + row["buggy_solution"], _visible_test(row),
                             row["test"] + f"\n\ncheck({row['entry_point']})\n"))
    return tasks


def make_workspace(task: FixTask, root: Path) -> Path:
    root.mkdir(parents=True)
    (root / task.module).write_text(task.source)
    (root / task.test_file).write_text(task.visible_test)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "b@e.f"],
                 ["config", "user.name", "B"], ["add", "-A"], ["commit", "-q", "-m", "buggy"]):
        subprocess.run(["git", *args], cwd=root, check=True)
    return root


def run_python(code: str, cwd: Path, timeout: float = 15.0) -> tuple[bool, str]:
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    return done.returncode == 0, (done.stdout + done.stderr)[-500:]


def hidden_check(task: FixTask, root: Path) -> bool:
    source = (root / task.module).read_text(errors="replace")
    return run_python(source + "\n\n" + task.hidden_test, root)[0]


def visible_check(root: Path) -> tuple[bool, str]:
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                              capture_output=True, text=True, timeout=60, check=False)
    except subprocess.TimeoutExpired:
        return False, "timed out"
    return done.returncode == 0, done.stdout[-3000:]
