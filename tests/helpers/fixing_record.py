"""A record of what the fixer did, for showing that a refactoring changed nothing (issue 53): every model
call through the solver door (messages, temperature, seed, stop, max_tokens) with its reply, every tool
call (each candidate written, each test run and what it printed), every restore and message left for the
tool loop, the fixer's answer, and the files left in the project. What varies from run to run (the
temporary folder, pytest's seconds) is written as a placeholder, so two runs of the same code give the
same record byte for byte."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from acode.agent.fixing.fixer import TestDrivenFixer
from acode.agent.loop.solver_door import SolverDoor

_SECONDS = re.compile(r"\d+(?:\.\d+)?s\b")
_TEMPORARY = re.compile(r"(/acode-[a-z]+-)[^/\s]+")  # tempfile's folders: acode-spectrum-l9qsy8v8
_SAVED = re.compile(r"shell-\d{8}-\d{6}-[0-9a-f]{6}\.txt")  # a long output kept in a file
_RUNNER = re.compile(r"\S*/spectrum_runner\.py")  # where acode's package is, and in it the runner
_ADDRESS = re.compile(r" at 0x[0-9a-f]+>")  # an object's repr: <function f at 0x7f18cf176ca0>
_MEASURED = {"timeout_seconds"}  # a candidate's test limit: a multiple of the first run's seconds
_SKIPPED_PARTS = {".git", "__pycache__", ".pytest_cache", ".acode"}


class FixingRecord:
    def __init__(self, root: Path):
        self.root = root
        self.events: list[Any] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        ask, tool, restore, tell = SolverDoor.ask, SolverDoor.tool, SolverDoor.restore, SolverDoor.tell
        solve = TestDrivenFixer.solve
        record = self

        def recorded_ask(door, messages, **options):
            reply = ask(door, messages, **options)
            record.add("ask", {"messages": [[m.role, m.content] for m in messages],
                               **{k: options[k] for k in sorted(options)}, "reply": reply})
            return reply

        def recorded_tool(door, name, arguments):
            step = tool(door, name, arguments)
            record.add("tool", {"name": name, "arguments": arguments, "decision": step.decision,
                                "ok": step.ok, "output": step.output, "error": step.error})
            return step

        def recorded_restore(door, contents):
            record.add("restore", sorted(contents))
            return restore(door, contents)

        def recorded_tell(door, message):
            record.add("tell", message)
            return tell(door, message)

        def recorded_solve(fixer, door, request):
            try:
                answer = solve(fixer, door, request)
            except BaseException as exc:
                record.add("raised", f"{type(exc).__name__}: {exc}")
                raise
            record.add("answer", answer)
            return answer

        monkeypatch.setattr(SolverDoor, "ask", recorded_ask)
        monkeypatch.setattr(SolverDoor, "tool", recorded_tool)
        monkeypatch.setattr(SolverDoor, "restore", recorded_restore)
        monkeypatch.setattr(SolverDoor, "tell", recorded_tell)
        monkeypatch.setattr(TestDrivenFixer, "solve", recorded_solve)

    def add(self, kind: str, value: Any) -> None:
        self.events.append([kind, stable(value, str(self.root))])

    def files(self) -> dict[str, str]:
        """The project's files as they are now (their sha256), but git's, caches' and acode's own."""
        found = {}
        for path in sorted(self.root.rglob("*")):
            relative = path.relative_to(self.root)
            if path.is_file() and not _SKIPPED_PARTS & set(relative.parts):
                found[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return found

    def text(self) -> str:
        return json.dumps({"events": self.events, "files": self.files()}, indent=1, ensure_ascii=False) + "\n"


def stable(value: Any, root: str = "<root>") -> Any:
    """``value`` with what varies from run to run written as placeholders (idempotent)."""
    if isinstance(value, str):
        value = _TEMPORARY.sub(r"\1<tmp>", value.replace(root, "<root>"))  # before a name's "42s" is seconds
        value = _SAVED.sub("shell-<time>.txt", _SECONDS.sub("<s>", value))
        value = _RUNNER.sub("<spectrum_runner.py>", value)
        return _ADDRESS.sub(" at 0x<address>>", value)
    if isinstance(value, dict):
        return {k: "<s>" if k in _MEASURED else stable(v, root) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [stable(v, root) for v in value]
    return value


def compare(before: Path, after: Path) -> list[str]:
    """The tests whose records differ between two record files (JSON lines, one test each), each with its
    first differing event; a test in one file only is named too."""
    def read(path: Path) -> dict[str, Any]:
        lines = path.read_text(encoding="utf-8").splitlines()
        return {r["test"]: stable(r["record"]) for r in map(json.loads, lines)}

    old, new = read(before), read(after)
    only = sorted(old.keys() ^ new.keys())
    found = [f"{test}: only in {before if test in old else after}" for test in only]
    for test in sorted(old.keys() & new.keys()):
        a, b = old[test], new[test]
        if a == b:
            continue
        events = [i for i, (x, y) in enumerate(zip(a["events"], b["events"], strict=False)) if x != y]
        where = f"event {events[0]}" if events else ("events" if a["events"] != b["events"] else "files")
        found.append(f"{test}: differs at {where}")
    return found


if __name__ == "__main__":  # python -m tests.helpers.fixing_record BEFORE.jsonl AFTER.jsonl
    import sys

    differences = compare(Path(sys.argv[1]), Path(sys.argv[2]))
    print("\n".join(differences) or "the same record")
    sys.exit(1 if differences else 0)
