"""Whole-file writing for a plan step (``acode run``'s executor): one model call that returns the complete
new content of the files the step names, syntax-checked, written through the write tool. One re-ask
with the problem when the reply cannot be used; after that the tool loop takes the step over."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from acode.agent.fixing.harness import ask, output_tokens_for, read_text, tool
from acode.agent.fixing.rewrite import FileView, parse_reply
from acode.llm.types import Message
from acode.prompts import render

if TYPE_CHECKING:
    from acode.agent.loop.agent_loop import AgentLoop, _Run

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


class StepWriter:
    """A loop solver: the step's files written whole in one call, or None to leave it to the tool loop."""

    def __init__(self, paths: list[str]):
        self.paths = paths

    def solve(self, loop: AgentLoop, run: _Run, request: str) -> str | None:
        if not self.paths or "write_file" not in loop.registry.names():
            return None
        workspace = Path(loop.ctx.workspace)
        views = [FileView(p, read_text(workspace / p)) for p in self.paths]
        system = render(
            "acode.agent", "write_system.j2", example_path=views[0].path, language=views[0].language
        )
        messages = [
            Message.system(system),
            Message.user(render("acode.agent", "write_step.j2", request=request, files=views)),
        ]
        room = output_tokens_for(loop, "".join(v.text for v in views)) + 400  # new files need room too
        for attempt in range(ASKS):
            reply = ask(loop, run, messages, seed=attempt, max_tokens=room)
            parsed = parse_reply(reply, views)
            if isinstance(parsed, str):
                messages = [
                    *messages[:2],
                    Message.assistant(reply),
                    Message.user(f"Your reply could not be used: {parsed}. Reply again."),
                ]
                continue
            written = []
            for path, text in parsed.items():
                step = tool(loop, run, "write_file", {"file_path": path, "content": text})
                if step.decision != "allowed" or not step.ok:
                    return None
                written.append(path)
            return f"Wrote {', '.join(written)}."
        return None
