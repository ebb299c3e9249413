"""The state snapshot that replaces the older part of a history: what the utility model is asked for,
the facts taken directly from the tool calls (files touched, recent actions), and how it is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from acode.llm.bounded_fields import bounded_list, bounded_text
from acode.llm.types import Message
from acode.prompts import render

SNAPSHOT_TAG = "<state_snapshot>"
EDIT_TOOLS = ("write_file", "replace")


# worst case ~550 tokens of JSON: inside the default summary_max_tokens (600), so the answer is never cut
ITEM_CHARS, GOAL_CHARS, LIST_ITEMS, TASK_ITEMS = 100, 160, 3, 5
Item = bounded_text(ITEM_CHARS)


class TaskItem(BaseModel):
    status: Literal["DONE", "IN PROGRESS", "TODO"]
    item: Item


class StateSnapshot(BaseModel):
    # The docstring is the schema's description, which the model reads: it stays word for word (the module
    # it names is now acode.llm.bounded_fields), since one changed word changes the 0.5B model's answers.
    """Bounded lengths (see acode.agent.bounded) keep a small model's answer inside its token budget."""

    overall_goal: bounded_text(GOAL_CHARS) = Field(description="the user's goal in one or two sentences")
    active_constraints: bounded_list(Item, LIST_ITEMS) = Field(
        default_factory=list, description="rules to keep"
    )
    key_knowledge: bounded_list(Item, LIST_ITEMS) = Field(
        default_factory=list, description="facts still needed"
    )
    artifact_trail: bounded_list(Item, LIST_ITEMS) = Field(
        default_factory=list, description="files changed, and how"
    )
    recent_actions: bounded_list(Item, LIST_ITEMS) = Field(
        default_factory=list, description="last actions, results"
    )
    task_state: bounded_list(TaskItem, TASK_ITEMS) = Field(
        default_factory=list, description="DONE / IN PROGRESS / TODO"
    )


def transcript(messages: list[Message], budget_chars: int, per_message: int = 900) -> str:
    """The older part as plain text for the summariser; the newest messages win when it must be cut."""
    lines: list[str] = []
    used = 0
    for message in reversed(messages):
        text = message.content
        if message.tool_calls:
            text += " " + "; ".join(
                f"CALL {c.name}({json.dumps(c.arguments)[:300]})" for c in message.tool_calls
            )
        label = f"tool result ({message.name})" if message.role == "tool" else message.role
        entry = f"[{label}] {text.strip()[:per_message]}"
        if used + len(entry) > budget_chars:
            lines.append("[... earlier messages omitted ...]")
            break
        lines.append(entry)
        used += len(entry)
    return "\n".join(reversed(lines))


def tool_facts(messages: list[Message]) -> tuple[list[str], list[str]]:
    """(files touched, recent actions) read straight from the tool calls and their results."""
    touched: dict[str, str] = {}
    actions: list[str] = []
    results = {m.tool_call_id: m.content for m in messages if m.role == "tool"}
    for message in messages:
        for call in message.tool_calls:
            path = call.arguments.get("file_path")
            if isinstance(path, str):
                touched[path] = "modified" if call.name in EDIT_TOOLS else touched.get(path, "read")
            outcome = results.get(call.id, "")
            status = "error" if outcome.startswith('{"error"') else "ok"
            args = json.dumps(call.arguments, ensure_ascii=False)
            actions.append(f"{call.name}({args[:120]}) -> {status}")
    files = [f"{path} ({how})" for path, how in touched.items()]
    return files, actions[-6:]


def previous_original_request(messages: list[Message]) -> str | None:
    for message in messages:
        if message.role == "user" and SNAPSHOT_TAG in message.content:
            marker = "Original request:\n"
            if marker in message.content:
                return message.content.split(marker, 1)[1].split("\n</original_request>", 1)[0]
    return None


def _real(items: list[str]) -> list[str]:
    """Drop what a small model copied from a template instead of writing ('...', '<file>: <what>')."""
    kept = [i for i in items if any(ch.isalnum() for ch in i) and not (i.startswith("<") and i.endswith(">"))]
    return list(dict.fromkeys(kept))  # and what it repeated


def render_snapshot(
    snapshot: StateSnapshot,
    *,
    original_request: str,
    files: list[str],
    actions: list[str],
    approved_plan: Path | None,
) -> str:
    snapshot = snapshot.model_copy(
        update={
            "active_constraints": _real(snapshot.active_constraints),
            "key_knowledge": _real(snapshot.key_knowledge),
            "task_state": [t for t in snapshot.task_state if _real([t.item])],
            "overall_goal": snapshot.overall_goal
            if _real([snapshot.overall_goal])
            else original_request[:200],
        }
    )
    trail = list(dict.fromkeys([*files, *_real(snapshot.artifact_trail)]))
    return render(
        "acode.agent",
        "state_snapshot.j2",
        s=snapshot,
        original_request=original_request,
        artifact_trail=trail,
        recent_actions=list(dict.fromkeys([*_real(snapshot.recent_actions), *actions])),
        approved_plan=str(approved_plan) if approved_plan else "",
    )
