"""What a solver does through the loop: one recorded model call, one tool call through the loop's tool
runner (validation, approval, rules, hooks, recording). Solvers never touch files or the model directly."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acode.agent.loop.result import ToolStep
from acode.llm.types import Message, ToolCall, new_call_id

if TYPE_CHECKING:
    from acode.agent.loop.agent_loop import AgentLoop, _Run


def ask(loop: AgentLoop, run: _Run, messages: list[Message], *, temperature: float = 0.0, seed: int = 0,
        max_tokens: int | None = None, stop: list[str] | None = None) -> str:
    """One plain-text model call, recorded as a model step; the loop's turn and time limits apply."""
    loop.check_limits(run)
    run.result.turns += 1
    run.state.turn += 1
    loop.observers.on_model_start(run.state)
    started = time.perf_counter()
    remaining = max(1.0, loop.config.max_seconds - run.elapsed)
    completion = loop.model.complete(
        messages,
        max_tokens=max_tokens or loop.config.max_tokens,
        temperature=temperature,
        seed=loop.config.seed + seed,
        timeout=min(remaining, loop.config.model_timeout or remaining),
        on_text=loop.observers.on_text,
        **({"stop": stop} if stop else {}),
    )
    seconds = time.perf_counter() - started
    run.result.model_seconds += seconds
    loop.record_model(run, completion, [], None, seconds)
    return completion.text


def tool(loop: AgentLoop, run: _Run, name: str, arguments: dict[str, Any]) -> ToolStep:
    call = ToolCall(id=new_call_id(), name=name, arguments=arguments)
    loop.append(run.state, Message.assistant("", [call]))
    return loop.run_tools(run, [call])[-1]


def output_tokens_for(loop: AgentLoop, text: str) -> int:
    """Room to write ``text`` back whole, with some to spare for the changes."""
    count = getattr(loop.model, "count_tokens", None)
    tokens = count(text) if count else len(text) // 3
    return max(loop.config.max_tokens, int(tokens * 1.3) + 200)


def read_text(path: Path) -> str:
    """A file's text for a prompt; an unreadable or non-UTF-8 file reads as empty (it is then not
    rewritten)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
