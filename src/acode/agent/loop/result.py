"""What one run of the loop returns: the answer, why it stopped, and the trajectory of every model call
and every tool call (the shape ``acode -p ... --json`` prints)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from acode.errors import EXIT_FAILURE, EXIT_HUMAN_DECLINED, EXIT_INTERRUPTED, EXIT_OK
from acode.llm.types import Usage

# A plan left unapproved in a non-interactive plan-mode run is a human decision, not a failure.
STOP_EXIT_CODES = {"interrupted": EXIT_INTERRUPTED, "plan_not_approved": EXIT_HUMAN_DECLINED}


class ModelStep(BaseModel):
    type: Literal["model"] = "model"
    turn: int
    seconds: float
    usage: Usage
    finish_reason: str
    text: str = ""
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)  # {id, name, arguments}
    format_error: str | None = None


class ToolStep(BaseModel):
    type: Literal["tool"] = "tool"
    turn: int
    call_id: str
    name: str
    arguments: dict[str, Any]
    decision: Literal["allowed", "denied", "invalid", "repeated", "cancelled"]
    ok: bool
    output: str  # the result the model was given (before the reminder line, see agent.remind_request)
    error: str | None = None
    seconds: float = 0.0  # running the tool itself
    overhead_seconds: float = 0.0  # validation, approval, hooks, recording around it


class TokenTotals(BaseModel):
    prompt_tokens: int = 0
    prompt_tokens_evaluated: int = 0
    prompt_tokens_reused: int = 0
    completion_tokens: int = 0

    def add(self, usage: Usage) -> None:
        self.prompt_tokens += usage.prompt_tokens
        self.prompt_tokens_evaluated += usage.prompt_tokens_evaluated
        self.prompt_tokens_reused += usage.prompt_tokens_reused
        self.completion_tokens += usage.completion_tokens


class AgentResult(BaseModel):
    session_id: str
    answer: str = ""
    # answer | max_turns | timeout | format_errors | interrupted | loop_detected | model_error | <hook reason>
    stop_reason: str = "answer"
    message: str = ""  # for people, when the run did not end with an answer
    turns: int = 0  # model calls in this run
    seconds: float = 0.0
    model_seconds: float = 0.0
    tool_seconds: float = 0.0
    tokens: TokenTotals = Field(default_factory=TokenTotals)
    trajectory: list[ModelStep | ToolStep] = Field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.stop_reason == "answer"

    @property
    def exit_code(self) -> int:
        """The process exit status of a one-shot run that ended this way."""
        return EXIT_OK if self.ok else STOP_EXIT_CODES.get(self.stop_reason, EXIT_FAILURE)

    def tool_steps(self) -> list[ToolStep]:
        return [s for s in self.trajectory if isinstance(s, ToolStep)]

    def model_steps(self) -> list[ModelStep]:
        return [s for s in self.trajectory if isinstance(s, ModelStep)]
