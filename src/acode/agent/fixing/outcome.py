"""Reading a test command's result as the shell tool reports it: exit code, pytest-style counts, and the
project files a traceback points at."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

_EXIT = re.compile(r"^\[exit code: (-?\d+)\]\s*$", re.MULTILINE)
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|error)\b")
_FRAME = re.compile(r"""(?:File "([^"]+)", line \d+|^([\w./-]+\.py):\d+:)""", re.MULTILINE)
_NOT_RUNNABLE = ("command not found", "No module named pytest", "No module named unittest")
MISSING_COMMAND_EXIT = 127


@dataclass(frozen=True)
class TestOutcome:
    output: str
    exit_code: int | None
    passed: int = 0
    failed: int = 0

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def runnable(self) -> bool:
        return self.exit_code != MISSING_COMMAND_EXIT and not any(s in self.output for s in _NOT_RUNNABLE)

    def better_than(self, other: TestOutcome | None) -> bool:
        if other is None:
            return True
        if self.ok != other.ok:
            return self.ok
        return (self.passed - self.failed) > (other.passed - other.failed)

    def summary(self) -> str:
        if self.passed or self.failed:
            return f"{self.passed} passed, {self.failed} failed"
        return "exit code 0" if self.ok else f"exit code {self.exit_code}"


def read_outcome(tool_output: str) -> TestOutcome:
    codes = _EXIT.findall(tool_output)
    exit_code = int(codes[-1]) if codes else None
    passed = failed = 0
    tail = tool_output[-2000:]
    for number, kind in _COUNT.findall(tail):
        if kind == "passed":
            passed = int(number)
        else:
            failed += int(number)
    return TestOutcome(tool_output, exit_code, passed, failed)


def implicated_files(output: str, workspace: Path) -> list[Path]:
    """Workspace files named by traceback frames, most recent frame last, relative to the workspace."""
    root = workspace.resolve()
    found: list[Path] = []
    for match in _FRAME.finditer(output):
        raw = match.group(1) or match.group(2)
        path = Path(raw)
        candidate = (path if path.is_absolute() else root / path).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            rel = candidate.relative_to(root)
            if rel not in found and not any(p.startswith(".") for p in rel.parts[:-1]):
                found.append(rel)
    return found


def imported_files(test_text: str, workspace: Path, test_name: str = "") -> list[Path]:
    """Workspace modules a test file imports (``import a.b``, ``from a.b import c`` where ``c`` may be a
    module too), under the root or ``src/``; the one the test is named after (``test_parser.py`` ->
    ``parser.py``) first."""
    try:
        tree = ast.parse(test_text)
    except (SyntaxError, ValueError):
        return []
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules += [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    found: list[Path] = []
    for module in modules:
        parts = module.split(".")
        for base in (Path(), Path("src")):
            for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
                if (workspace / candidate).is_file() and candidate not in found:
                    found.append(candidate)
    subject = test_name.removeprefix("test_").removesuffix(".py").removesuffix("_test")
    return sorted(found, key=lambda p: p.stem != subject)


# What differs between two runs of the same failing tests: durations and object addresses. Left in the
# prompt, they made the same task get a different greedy answer in the next run (issue 29).
_RUN_NOISE = (
    (re.compile(r"\b(\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+ in "
                r"[\d.]+s(?: \([\d:]+\))?"), lambda m: m.group(0).rsplit(" in ", 1)[0]),
    (re.compile(r"\bat 0x[0-9a-fA-F]+"), lambda m: "at 0x..."),
    (re.compile(r"^Ran (\d+ tests?) in [\d.]+s$", re.MULTILINE), lambda m: f"Ran {m.group(1)}"),
)


def trim_output(output: str, limit: int = 2500) -> str:
    """The part of a test run a model needs: the head (what failed) and the tail (the summary), without
    what changes from one run to the next (timings, addresses), so the same failure is the same prompt."""
    for pattern, replace in _RUN_NOISE:
        output = pattern.sub(replace, output)
    if len(output) <= limit:
        return output
    head = output[: limit * 2 // 3]
    tail = output[-limit // 3 :]
    return f"{head}\n[... {len(output) - len(head) - len(tail)} characters left out ...]\n{tail}"
