"""The ``reviewer`` tool: a second opinion inside the agent. It gathers the session's conversation
(``ctx.state["history"]``) and the latest content of every file changed through write_file/replace
(``ctx.state["files_changed"]``), and asks the model, as an expert code reviewer and project manager,
for a critique. It runs no commands. Files and history are trimmed to the model's context budget:
files first (they are the work), then the newest messages that still fit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from acode.errors import ModelError
from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.tools.base import Tool, ToolContext, ToolError, ToolResult

OUTPUT_TOKENS = 600
FILES_SHARE = 0.6  # of the room left after the fixed prompt, at most this much goes to files
MESSAGE_CHARS = 1500  # one message is cut to this before counting


class ReviewerArgs(BaseModel):
    task_description: str = Field(description="The task you are working on, in full, as the user gave it.")


@dataclass
class FileView:
    path: str
    content: str
    note: str = ""


class ReviewerTool(Tool):
    name = "reviewer"
    kind = "read"  # changes nothing, runs nothing
    description = (
        "Ask an expert code reviewer for a critique of your work so far: alignment with the task, whether "
        "build/lint/tests were run, code quality and completeness. Call it after significant changes and "
        "before declaring the task done."
    )
    Args = ReviewerArgs

    def __init__(self, model: ChatModel, *, max_tokens: int = OUTPUT_TOKENS):
        self.model = model
        self.max_tokens = max_tokens

    def run(self, args: ReviewerArgs, ctx: ToolContext) -> ToolResult:
        system = render("acode.agent", "reviewer_tool_system.j2")
        history = _history_lines(ctx.state.get("history") or [])
        changed = list(ctx.state.get("files_changed") or [])
        skeleton = render("acode.agent", "reviewer_tool_request.j2", task=args.task_description, history="",
                          history_omitted=0, files=[], files_omitted=[])
        room = (
            self.model.context_window - self.max_tokens - self._tokens(system) - self._tokens(skeleton) - 64
        )
        if room <= 0:
            raise ToolError("the model's context window is too small for a review")
        files, omitted, used = self._fit_files(ctx, changed, int(room * FILES_SHARE))
        kept, dropped = self._fit_history(history, room - used)
        request = render(
            "acode.agent",
            "reviewer_tool_request.j2",
            task=args.task_description,
            history="\n".join(kept),
            history_omitted=dropped,
            files=files,
            files_omitted=omitted,
        )
        try:
            completion = self.model.complete(
                [Message.system(system), Message.user(request)], max_tokens=self.max_tokens, temperature=0.0
            )
        except ModelError as exc:
            raise ToolError(f"the reviewer could not answer: {exc.message}") from exc
        critique = completion.text.strip() or "(the reviewer gave no answer)"
        shown = ", ".join(f.path for f in files) or "none"
        return ToolResult(output=critique, display=f"review of {len(files)} changed file(s): {shown}")

    def _tokens(self, text: str) -> int:
        return self.model.count_tokens(text)

    def _fit_files(
        self, ctx: ToolContext, changed: Sequence[str], budget: int
    ) -> tuple[list[FileView], list[str], int]:
        """Whole files, in the order they were changed, while they fit; a file that does not fit is set
        aside so smaller ones still go in. Then the first set-aside file is cut to the room left, if
        there is a useful amount; the rest are named as not shown."""
        views = [_read_changed(ctx, shown) for shown in changed]
        costs = [self._tokens(v.content) + 12 for v in views]
        used = 0
        chosen: dict[int, FileView] = {}
        for index, (view, cost) in enumerate(zip(views, costs, strict=True)):
            if used + cost <= budget:
                chosen[index], used = view, used + cost
        aside = [i for i in range(len(views)) if i not in chosen]
        if aside and budget - used > 200:
            index = aside.pop(0)
            view, room = views[index], budget - used - 20
            keep = int(len(view.content) * room / costs[index])
            chosen[index] = FileView(view.path, view.content[:keep], "cut to fit the context budget")
            used = budget
        files = [chosen[i] for i in sorted(chosen)]
        return files, [views[i].path for i in aside], used

    def _fit_history(self, lines: list[str], budget: int) -> tuple[list[str], int]:
        """The newest messages that fit; returns them in order and how many old ones were left out."""
        kept: list[str] = []
        used = 0
        for line in reversed(lines):
            cost = self._tokens(line) + 2
            if used + cost > budget:
                break
            kept.append(line)
            used += cost
        kept.reverse()
        return kept, len(lines) - len(kept)


def _read_changed(ctx: ToolContext, shown: str) -> FileView:
    path = Path(shown)
    path = path if path.is_absolute() else Path(ctx.workspace) / path
    try:
        return FileView(shown, path.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return FileView(shown, "", "deleted since it was changed")
    except OSError as exc:
        return FileView(shown, "", f"unreadable: {exc.strerror}")


def _history_lines(history: Sequence[Message]) -> list[str]:
    """One line per message, without the system prompt; tool calls shown as name(arguments)."""
    lines = []
    for message in history:
        if message.role == "system":
            continue
        text = message.content.strip()
        if len(text) > MESSAGE_CHARS:
            text = text[:MESSAGE_CHARS] + " [...]"
        calls = ", ".join(f"{c.name}({_short_args(c.arguments)})" for c in message.tool_calls)
        label = f"tool {message.name}" if message.role == "tool" else message.role
        lines.append(f"[{label}] {text}{' -> calls ' + calls if calls else ''}".rstrip())
    return lines


def _short_args(arguments: dict) -> str:
    parts = []
    for key, value in arguments.items():
        text = str(value).replace("\n", "\\n")
        parts.append(f"{key}={text[:80] + '...' if len(text) > 80 else text}")
    return ", ".join(parts)
