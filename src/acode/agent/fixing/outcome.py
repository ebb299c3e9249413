"""Reading a test command's result as the shell tool reports it: exit code, pytest-style counts, and the
project files a traceback points at."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_EXIT = re.compile(r"^\[exit code: (-?\d+)\]\s*$", re.MULTILINE)
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|error)\b")
_FRAME = re.compile(r"""(?:File "([^"]+)", line (\d+)|^([\w./-]+\.py):(\d+):)""", re.MULTILINE)
_SUMMARY_ID = re.compile(r"^(?:FAILED|ERROR) (\S.*?)(?: - .*)?$", re.MULTILINE)
_NOT_RUNNABLE = ("command not found", "No module named pytest", "No module named unittest")
_VIRTUALENV_PARTS = ("site-packages", "venv", "node_modules")
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
        # a run that counted no test (killed when it hung, a collection error) is worse than any that did: a
        # candidate whose test hangs was kept as "does best" over the original's 1 failed (pyflakes, issue 29)
        if self.counted != other.counted:
            return self.counted
        return (self.passed - self.failed) > (other.passed - other.failed)

    @property
    def counted(self) -> bool:
        return bool(self.passed or self.failed)

    def summary(self) -> str:
        if self.counted:
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


def failing_ids(output: str) -> list[str]:
    """The node ids (or, for a file that does not import, its path) pytest's short summary reports as
    failed or in error, in order."""
    return _SUMMARY_ID.findall(output)


def printed_frames(output: str) -> list[tuple[str, int]]:
    """(file as printed, line) of each traceback frame (Python's ``File "x", line N`` and pytest's
    ``x.py:N:``), in the order printed."""
    return [(m.group(1), int(m.group(2))) if m.group(1) else (m.group(3), int(m.group(4)))
            for m in _FRAME.finditer(output)]


def traceback_frames(output: str, workspace: Path) -> list[tuple[Path, int]]:
    """(workspace file, line) of each traceback frame, in the order printed (pytest: the test first, the
    line that raised last); files outside the workspace, hidden or in a virtualenv left out."""
    root = workspace.resolve()
    frames: list[tuple[Path, int]] = []
    for raw, line in printed_frames(output):
        path = Path(raw)
        candidate = (path if path.is_absolute() else root / path).resolve()
        if candidate.is_file() and candidate.is_relative_to(root):
            rel = candidate.relative_to(root)
            if not any(p.startswith(".") or p in _VIRTUALENV_PARTS for p in rel.parts[:-1]):
                frames.append((rel, line))
    return frames


def implicated_files(output: str, workspace: Path) -> list[Path]:
    """Workspace files named by traceback frames, in the order first printed, relative to the workspace."""
    return list(dict.fromkeys(path for path, _ in traceback_frames(output, workspace)))


# What differs between two runs of the same failing tests: durations and object addresses. Left in the
# prompt, they made the same task get a different greedy answer in the next run (issue 29).
_RUN_NOISE = (
    (re.compile(r"\b(\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected)(?:, )?)+ in "
                r"[\d.]+s(?: \([\d:]+\))?"), lambda m: m.group(0).rsplit(" in ", 1)[0]),
    (re.compile(r"\bat 0x[0-9a-fA-F]+"), lambda m: "at 0x..."),
    (re.compile(r"^Ran (\d+ tests?) in [\d.]+s$", re.MULTILINE), lambda m: f"Ran {m.group(1)}"),
)


# The shell tool's frame around what a command printed (acode.tools.shell): the command and its folder
# before, its exit code (or why it ended) after
_FRAME_HEAD = re.compile(r"\A\$ [^\n]*\n\(in [^\n]*\)\n")
_FRAME_TAIL = re.compile(
    r"(?:\n\[(?:exit code: -?\d+|killed by signal|no output for |still running after |processes the command|"
    r"sandbox: )"
    r"[^\n]*\])+\s*\Z"
)


def printed(tool_output: str) -> str:
    """What the test command itself printed, without the shell tool's frame: the text anyone would paste
    into one call of a model (the one-call framing shows exactly that)."""
    return _FRAME_TAIL.sub("", _FRAME_HEAD.sub("", tool_output)).strip()


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
