"""Whole-file writing for a plan step (``acode run``'s executor): one model call that returns the complete
new content of the files the step names, syntax-checked, written through the write tool. One re-ask
with the problem when the reply cannot be used; after that the tool loop takes the step over.

Files the task names but the step does not are shown for reference and never asked back: copying them
out again is generation time, and one file asked for lets generation stop at its closing fence (as the
test-driven fixer's does). The system prompt is the same for every step, so the next step's call reads
the part of its prompt the previous one shared (the task and the plan) from the KV cache."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from acode.agent.fixing.file_view import FileView, read_text
from acode.agent.fixing.rewrite import close_fence, parse_reply, reply_stop
from acode.llm.types import Message
from acode.prompts import render

if TYPE_CHECKING:
    from acode.agent.loop.solver_door import SolverDoor

_NEW_FILE = re.compile(r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.py)\b")
MAX_FILE_LINES = 300
ASKS = 2


def step_files(text: str, workspace: Path, limit: int = 3) -> list[str]:
    """Python files the text names: existing ones (small enough to write back whole) and new ones."""
    paths: list[str] = []
    root = workspace.resolve()
    for match in _NEW_FILE.finditer(text):
        name = match.group(1)
        target = (root / name).resolve()
        if (
            name in paths
            or not target.is_relative_to(root)
            or any(p.startswith(".") for p in Path(name).parts)
        ):
            continue
        if target.is_file() and len(target.read_text(errors="replace").splitlines()) > MAX_FILE_LINES:
            continue
        paths.append(name)
    return paths[:limit]


def targets_and_context(step: str, task: str, workspace: Path) -> tuple[list[str], list[str]]:
    """The files a step writes (those its own text names, else those the task names) and the existing
    files the task names besides, shown for reference."""
    targets = step_files(step, workspace) or step_files(task, workspace)
    context = [p for p in step_files(f"{task}\n{step}", workspace)
               if p not in targets and (workspace / p).is_file()]
    return targets, context


class StepWriter:
    """A loop solver: the step's files written whole in one call, or None to leave it to the tool loop.
    ``context``: files shown, not written. ``request``: the step as the writer gets it, when the loop's
    prompt holds file contents the writer shows itself (read once, not twice)."""

    def __init__(self, paths: list[str], context: list[str] | None = None, request: str | None = None):
        self.paths = paths
        self.context = [p for p in context or [] if p not in paths]
        self.request = request

    def solve(self, door: SolverDoor, request: str) -> str | None:
        if not self.paths or "write_file" not in door.tool_names():
            return None
        workspace = door.workspace
        views = [FileView(p, read_text(workspace / p)) for p in self.paths]
        shown = [FileView(p, read_text(workspace / p)) for p in self.context]
        messages = [
            Message.system(render("acode.agent", "write_system.j2")),
            Message.user(render("acode.agent", "write_step.j2", request=self.request or request, files=views,
                                context=[v for v in shown if v.text])),
        ]
        room = door.output_tokens_for("".join(v.text for v in views)) + 400  # new files need room too
        stop = reply_stop(views, partial=False)
        for attempt in range(ASKS):
            reply = close_fence(door.ask(messages, seed=attempt, max_tokens=room, stop=stop))
            parsed = parse_reply(reply, views, shown)
            if isinstance(parsed, str):
                messages = [
                    *messages[:2],
                    Message.assistant(reply),
                    Message.user(f"Your reply could not be used: {parsed}. Reply again."),
                ]
                continue
            written = []
            for path, text in parsed.items():
                step = door.tool("write_file", {"file_path": path, "content": text})
                if step.decision != "allowed" or not step.ok:
                    return None
                written.append(path)
            return f"Wrote {', '.join(written)}."
        return None
