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
        self.events.append([kind, self._stable(value)])

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

    def _stable(self, value: Any) -> Any:
        if isinstance(value, str):
            return _SECONDS.sub("<s>", value.replace(str(self.root), "<root>"))
        if isinstance(value, dict):
            return {k: self._stable(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._stable(v) for v in value]
        return value
