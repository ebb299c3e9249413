"""Optional look-around: before assessing, the reviewer may read more of the repository with read-only
tools (a bounded number of calls). Tool failures go back to it as messages; a model answer that is not
a usable tool call simply ends the look-around, it never ends the review."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from acode.errors import ModelOutputError
from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.review.judging.proposals import PKG
from acode.secrets import redact
from acode.tools.base import ToolContext, ToolRegistry

log = logging.getLogger("acode.review")


@dataclass
class LookAround:
    notes: str = ""  # what was read, for the shared context of the assessment
    calls: list[str] = field(default_factory=list)  # "read_file_part {...}" per call, for the report


def explore(
    model: ChatModel,
    messages: list[Message],
    tools: ToolRegistry,
    workspace: Path,
    *,
    max_calls: int,
    max_result_chars: int,
    timeout: Callable[[], float],
    progress: Callable[[str], None] = lambda _: None,
) -> LookAround:
    out = LookAround()
    read_only = ToolRegistry(t for t in tools if t.read_only)
    if max_calls <= 0 or not read_only.names():
        return out
    history = list(messages)
    history[-1] = Message(role="user", content=history[-1].content + "\n\n" + render(
        PKG, "lookaround.j2", max_calls=max_calls, left=max_calls))
    ctx = ToolContext.from_settings(workspace, None, output_budget_chars=max_result_chars)
    sections = []
    for used in range(max_calls):
        try:
            answer = model.complete(history, tools=read_only.specs(), max_tokens=160, temperature=0.0,
                                    timeout=timeout())
        except ModelOutputError as exc:
            log.info("look-around ended: %s", exc.message)
            break
        if not answer.tool_calls:
            break
        call = answer.tool_calls[0]
        progress(f"looking around: {call.name}")
        result = read_only.dispatch(call, ctx)
        text = redact(result.for_model())[:max_result_chars]
        label = f"{call.name} {json.dumps(call.arguments, ensure_ascii=False)}"
        out.calls.append(label)
        sections.append(f"{label}:\n{text}")
        history += [Message.assistant("", [call]), Message.tool(call, text)]
        left = max_calls - used - 1
        if left:
            history.append(Message.user(render(PKG, "lookaround.j2", max_calls=max_calls, left=left)))
    out.notes = "\n\n".join(sections)
    return out
