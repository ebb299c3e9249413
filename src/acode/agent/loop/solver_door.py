"""The loop's door for solvers (acode.agent.fixing): what a strategy tried before the ReAct cycle may do
within one user prompt, and nothing else. Every model call is a turn: the loop's limits apply, every
middleware's ``before_model`` and ``after_model`` run and the call is a recorded model step. Every tool
call, a restored file included, goes through the loop's tool runner: validation, approval, rules,
``before_tool``/``after_tool`` (hooks, checkpoints) and the session's recording.

A solver's prompts are its own messages, not the conversation: ``before_model`` works on the session's
history as it does before any turn (compression, a loop nudge or a hook's added context land there), so
it never rewrites what the solver sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.result import ToolStep
from acode.errors import ModelOutputError
from acode.llm.no_model import NoModel
from acode.llm.protocol import ChatModel
from acode.llm.types import Completion, Message, ToolCall, new_call_id
from acode.tools.base import ToolContext, ToolRegistry


class _Loop(Protocol):
    """What the door uses of AgentLoop (acode.agent.loop.agent_loop, which imports this module); ``run`` is
    the loop's own record of the prompt being worked on, passed back untouched."""

    model: ChatModel
    registry: ToolRegistry
    ctx: ToolContext
    config: Any

    def begin_turn(self, run: Any, *, sends_history: bool = True) -> None: ...
    def call_model(self, run: Any, messages: list[Message], **options: Any) -> tuple[Completion, str | None,
                                                                                        float]: ...
    def record_model(self, run: Any, completion: Completion, calls: list[ToolCall], problem: str | None,
                     seconds: float) -> None: ...
    def append(self, state: AgentState, message: Message) -> None: ...
    def run_tools(self, run: Any, calls: list[ToolCall]) -> list[ToolStep]: ...


class SolverDoor:
    """One user prompt's run as a solver sees it."""

    def __init__(self, loop: _Loop, run: Any):
        self._loop = loop
        self._run = run
        self.generated = 0  # completion tokens of this door's calls (a solver's budget is counted in them)

    @property
    def workspace(self) -> Path:
        return Path(self._loop.ctx.workspace)

    @property
    def approval_mode(self) -> str:
        return self._run.state.approval_mode

    def tool_names(self) -> list[str]:
        return self._loop.registry.names()

    @property
    def has_model(self) -> bool:
        """False under ``model.backend: none``, where every model call fails: a solver then tries only what
        needs no model."""
        return not isinstance(self._loop.model, NoModel)

    def ask(self, messages: list[Message], *, temperature: float = 0.0, seed: int = 0,
            max_tokens: int | None = None, stop: list[str] | None = None) -> str:
        """One plain-text model call on ``messages`` (no tools), a turn of the loop like any other."""
        loop, run = self._loop, self._run
        loop.begin_turn(run, sends_history=False)
        options: dict[str, Any] = {
            "max_tokens": max_tokens or loop.config.max_tokens,
            "temperature": temperature,
            "seed": loop.config.seed + seed,
        }
        if stop:
            options["stop"] = stop
        completion, problem, seconds = loop.call_model(run, messages, **options)
        loop.record_model(run, completion, [], problem, seconds)
        # a server that reports no usage: about four characters a token
        self.generated += completion.usage.completion_tokens or len(completion.text) // 4
        if problem is not None:
            raise ModelOutputError("ACODE-AGENT-011", problem)
        return completion.text

    def tool(self, name: str, arguments: dict[str, Any]) -> ToolStep:
        """One tool call, as if the model had made it."""
        call = ToolCall(id=new_call_id(), name=name, arguments=arguments)
        self._loop.append(self._run.state, Message.assistant("", [call]))
        return self._loop.run_tools(self._run, [call])[-1]

    def restore(self, contents: dict[str, bytes]) -> list[str]:
        """Put files back as they were, through the write tool (so checkpoints and hooks see it); only the
        ones that differ are written. The paths that could not be restored (refused or failed)."""
        failed = []
        for path, data in contents.items():
            target = self.workspace / path
            if target.is_file() and target.read_bytes() == data:
                continue
            text = data.decode("utf-8", errors="surrogateescape")  # the write tool writes the same bytes
            step = self.tool("write_file", {"file_path": path, "content": text})
            if step.decision != "allowed" or not step.ok:
                failed.append(path)
        return failed

    def tell(self, message: str) -> None:
        """A user message for the tool loop that goes on after the solver."""
        self._loop.append(self._run.state, Message.internal(message))

    def output_tokens_for(self, text: str) -> int:
        """Room to write ``text`` back whole, with some to spare for the changes."""
        count = getattr(self._loop.model, "count_tokens", None)
        tokens = count(text) if count else len(text) // 3
        return max(self._loop.config.max_tokens, int(tokens * 1.3) + 200)
