"""The state snapshot that replaces the older part of a history: what the utility model is asked for,
the facts taken directly from the tool calls (files touched, recent actions), and how it is shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StringConstraints, field_validator

from acode.llm.types import Message
from acode.prompts import render

SNAPSHOT_TAG = "<state_snapshot>"
EDIT_TOOLS = ("write_file", "replace")


# worst case ~550 tokens of JSON: inside the default summary_max_tokens (600), so the answer is never cut
ITEM_CHARS, GOAL_CHARS, LIST_ITEMS, TASK_ITEMS = 100, 160, 3, 5
Item = Annotated[str, StringConstraints(max_length=ITEM_CHARS)]


class TaskItem(BaseModel):
    status: Literal["DONE", "IN PROGRESS", "TODO"]
    item: Item

    @field_validator("item", mode="before")
    @classmethod
    def _cut(cls, value: Any) -> Any:
        return value[:ITEM_CHARS] if isinstance(value, str) else value


class StateSnapshot(BaseModel):
    """Bounded lengths keep a constrained small model's answer inside its token budget; an
    unconstrained backend's longer answer is cut to the same bounds instead of being rejected."""

    overall_goal: str = Field(max_length=GOAL_CHARS, description="the user's goal in one or two sentences")
    active_constraints: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS, description="rules to keep")
    key_knowledge: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS, description="facts still needed")
    artifact_trail: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS, description="files changed, and how")
    recent_actions: list[Item] = Field(default_factory=list, max_length=LIST_ITEMS, description="last actions, results")
    task_state: list[TaskItem] = Field(default_factory=list, max_length=TASK_ITEMS, description="DONE / IN PROGRESS / TODO")

    @field_validator("overall_goal", mode="before")
    @classmethod
    def _cut_goal(cls, value: Any) -> Any:
        return value[:GOAL_CHARS] if isinstance(value, str) else value

    @field_validator("active_constraints", "key_knowledge", "artifact_trail", "recent_actions", mode="before")
    @classmethod
    def _cut_list(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [v[:ITEM_CHARS] if isinstance(v, str) else v for v in value[:LIST_ITEMS]]

    @field_validator("task_state", mode="before")
    @classmethod
    def _cut_tasks(cls, value: Any) -> Any:
        return value[:TASK_ITEMS] if isinstance(value, list) else value


def transcript(messages: list[Message], budget_chars: int, per_message: int = 900) -> str:
    """The older part as plain text for the summariser; the newest messages win when it must be cut."""
    lines: list[str] = []
    used = 0
    for message in reversed(messages):
        text = message.content
        if message.tool_calls:
            text += " " + "; ".join(f"CALL {c.name}({json.dumps(c.arguments)[:300]})" for c in message.tool_calls)
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
            "overall_goal": snapshot.overall_goal if _real([snapshot.overall_goal]) else original_request[:200],
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
