"""Where the bug probably is, from what the tests executed: spectrum-based fault localisation.

The named tests' files run whole once before any edit (the neighbours check needs that run anyway); run
through spectrum_runner.py, the run also records which project functions each test executed. A function
the failing tests execute and the passing tests of the same files do not is suspect (the Ochiai score:
``failing_with / sqrt(failing_total * (failing_with + passing_with))``). That is executed evidence where a
traceback is not: an assertion in the test about a wrong result has no frame in the function that computed
it, and the test's imports name the entry point, not the helper three calls down."""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from acode.agent.fixing.detect import is_test_file

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
RUNNER = Path(__file__).with_name("spectrum_runner.py")


@dataclass(frozen=True)
class Suspect:
    path: Path  # relative to the workspace
    name: str  # qualified name: "Lexer.get_tokens", "Schema._bind_field.<locals>.f"
    line: int  # its first line
    score: float
    failing: int  # failing tests that executed it
    passing: int  # passing tests that executed it


def spectrum_command(files_command: str, out: Path) -> str | None:
    """``files_command`` (a pytest command) run through the recording runner, or None when its Python is
    not known (``pytest`` by itself: the Python of its script's first line)."""
    try:
        words = shlex.split(files_command)
    except ValueError:
        return None
    python: list[str] | None
    for index, word in enumerate(words[:-1]):
        if word == "-m" and words[index + 1] == "pytest" and index > 0:
            python, arguments = words[:index], words[index + 2 :]
            break
    else:
        if not words or Path(words[0]).name not in ("pytest", "py.test"):
            return None
        python, arguments = _script_python(words[0]), words[1:]
        if python is None:
            return None
    *assignments, program = python
    if not all(_ASSIGNMENT.fullmatch(word) for word in assignments) or _ASSIGNMENT.fullmatch(program):
        return None  # `cd x && python -m pytest`: not a command this can rewrite
    return shlex.join([*python, str(RUNNER), str(out), *arguments])


def _is_named(node: str, named: list[str] | None) -> bool:
    return named is None or any(node == n or node.startswith((n + "[", n + "::")) for n in named)


def _script_python(script: str) -> list[str] | None:
    found = shutil.which(script)
    if found is None:
        return None
    try:
        first = Path(found).read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    return [first[2:].strip()] if first.startswith("#!") and " " not in first[2:].strip() else None


def _record(recorded: Path) -> tuple[list, dict] | None:
    """The record's functions and tests, or None when it is missing or broken."""
    try:
        data = json.loads(recorded.read_text(encoding="utf-8"))
        functions, tests = data["functions"], data["tests"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (functions, tests) if isinstance(functions, list) and isinstance(tests, dict) else None


def recorded_failures(recorded: Path) -> frozenset[str] | None:
    """The node ids of every test the record saw fail (complete, where the run's printed output may be cut
    to the tool's output budget), or None when there is no usable record."""
    data = _record(recorded)
    if data is None:
        return None
    tests = data[1]
    return frozenset(node for node, entry in tests.items() if isinstance(entry, dict) and entry.get("failed"))


def suspects(recorded: Path, workspace: Path, named: list[str] | None = None) -> list[Suspect]:
    """The project's functions (tests and conftest.py left out) that the failing tests executed, most
    suspect first. ``named``: the node ids the request names (a function's id covers its parameters, a
    class's its methods); of the tests that fail, only those count as failing, since another test that
    fails before any edit fails for another reason (the environment). Default: every test that fails."""
    data = _record(recorded)
    if data is None:
        return []
    functions, tests = data
    failed = {node for node, entry in tests.items() if entry.get("failed") and _is_named(node, named)}
    if not failed:
        return []
    counts: dict[int, list[int]] = {}
    for node, entry in tests.items():
        if entry.get("failed") and node not in failed:
            continue  # failing for another reason (the environment): neither evidence for nor against
        column = 0 if node in failed else 1
        for index in entry.get("functions", ()):
            counts.setdefault(index, [0, 0])[column] += 1
    found = []
    for index, (with_failing, with_passing) in counts.items():
        path, name, line = functions[index]
        path = Path(path)
        if not with_failing or is_test_file(path) or not (workspace / path).is_file():
            continue
        score = with_failing / math.sqrt(len(failed) * (with_failing + with_passing))
        found.append(Suspect(path, name, int(line), score, with_failing, with_passing))
    found.sort(key=lambda s: (-s.score, -s.failing, s.path.as_posix(), s.line))
    return found
