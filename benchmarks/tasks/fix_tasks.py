"""Bug-fix tasks for benchmarks/fix/fix_success.py. Two sets:

- `humanevalfix`: built from ../shared/data/humanevalpack-python.jsonl: the file is the task's prompt
  (signature and docstring) plus its buggy solution, the visible test file is its example_test as a pytest
  test, and the hidden check (which decides success and is never shown to anyone) is the full `test`.
- `novel`: benchmarks/data/novel_bugs.jsonl (48 functions written for acode, never used to tune the
  fixer): the same layout; the visible test holds two statements of `check` (its first one and the first
  one the bug makes fail), the hidden check is the whole `check`."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from acode.command_sandbox import command_env
from acode.sandbox import find_sandbox
from benchmarks.harness.grading import FAILED, PASSED, grade

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "humanevalpack-python.jsonl"
NOVEL = Path(__file__).resolve().parents[1] / "data" / "novel_bugs.jsonl"
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

    @property
    def fail_to_pass(self) -> list[str]:
        """The hidden check, one program: the task's whole ``check`` (it fails on the buggy file)."""
        return [f"check({self.entry_point})"]


def _visible_test(row: dict) -> str:
    lines = row["example_test"].rstrip().splitlines()
    entry = row["entry_point"]
    if lines and lines[-1].strip().startswith(f"check({entry})"):
        lines = lines[:-1]
    return (f"from {entry} import {entry}\n\n\n" + "\n".join(lines).rstrip()
            + f"\n\n\ndef test_examples():\n    check({entry})\n")


def _check_statements(test: str) -> tuple[list[str], set[int]]:
    """The top-level statements of ``def check(candidate):``, dedented, and which of them set things up
    (assignments, imports: always part of the visible test)."""
    tree = ast.parse(test)
    check = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "check")
    kinds = ast.Assign | ast.Import | ast.ImportFrom
    setup = {i for i, stmt in enumerate(check.body) if isinstance(stmt, kinds)}
    statements = [textwrap.dedent(ast.get_source_segment(test, s, padded=True) or "") for s in check.body]
    return statements, setup


_FAILING = """import json
{source}
failing = []
namespace = {{**globals(), "candidate": {entry}}}
for index, statement in enumerate(json.loads({statements!r})):
    try:
        exec(statement, namespace)
    except Exception:
        failing.append(index)
print(json.dumps(failing))
"""


def _novel_visible_test(row: dict) -> str:
    statements, setup = _check_statements(row["test"])
    entry = row["entry_point"]
    code = _FAILING.format(source=row["prompt"] + row["buggy_solution"], statements=json.dumps(statements),
                           entry=entry)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30,
                          check=False)
    failing = json.loads(done.stdout or "[]")
    first = min(set(range(len(statements))) - setup)
    chosen = sorted({*setup, first, *failing[:1]}) if failing else range(len(statements))
    body = "\n".join(textwrap.indent(statements[i], "    ") for i in chosen)
    return f"from {entry} import {entry}\n\n\ndef test_{entry}():\n    candidate = {entry}\n{body}\n"


def load_tasks(path: Path = DATA, half: str = "all", task_set: str = "humanevalfix") -> list[FixTask]:
    novel = task_set == "novel"
    tasks = []
    for line in (NOVEL if novel else path).read_text().splitlines():
        row = json.loads(line)
        number = int(row["task_id"].split("/")[1])
        if (half == "even" and number % 2) or (half == "odd" and not number % 2):
            continue
        hidden = row["test"] if novel else row["test"] + f"\n\ncheck({row['entry_point']})\n"
        visible = _novel_visible_test(row) if novel else _visible_test(row)
        tasks.append(FixTask(row["task_id"], number, row["entry_point"],
                             row["prompt"] + row["buggy_solution"], visible, hidden))
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
    """Does the file in ``root`` resolve the task: the hidden check, never shown to anyone, passes."""
    source = (root / task.module).read_text(errors="replace")
    passed = run_python(source + "\n\n" + task.hidden_test, root)[0]
    outcome = PASSED if passed else FAILED
    return grade({test: outcome for test in task.fail_to_pass}, task.fail_to_pass).resolved


def agent_shell_env() -> dict[str, str]:
    """The environment acode's shell gives a command here, so that both arms read the same test output:
    ``os.environ`` given explicitly (without env= the child inherits the C environment, where readline may
    have put a COLUMNS that changes how pytest cuts its lines), reduced as the default sandbox reduces it
    where bubblewrap runs (a variable it drops, such as a CI runner's own, can change pytest's output)."""
    env = dict(os.environ)
    return command_env(env) if find_sandbox()[0] is not None else env


def visible_check(root: Path) -> tuple[bool, str]:
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                              capture_output=True, text=True, timeout=60, check=False, env=agent_shell_env())
    except subprocess.TimeoutExpired:
        return False, "timed out"
    return done.returncode == 0, done.stdout  # whole: the one call cuts it as acode does (trim_output)
