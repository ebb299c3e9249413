"""Settings of ``acode run`` (the Planner -> Executor -> Verifier -> Reviewer pipeline)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from acode.config.agent import ApprovalMode


class StageTimeouts(BaseModel):
    """Seconds each stage may take before the run stops (its state stays resumable)."""

    model_config = ConfigDict(extra="forbid")

    planner: float = Field(600.0, gt=0, description="the plan")
    executor: float = Field(1800.0, gt=0, description="per step")
    verifier: float = Field(600.0, gt=0, description="per command")


class PipelineSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_cycles: int = Field(3, ge=1, description="plan -> review cycles before escalating")
    max_verify_retries: int = Field(2, ge=0, description="executor retries after a failed verification")
    verify_commands: list[str] | None = Field(
        None, description="project checks; None detects them (pytest when tests exist, ruff when configured)"
    )
    check_command_prefixes: list[str] = Field(
        default_factory=lambda: [
            "pytest",
            "python -m pytest",
            "ruff",
            "python -m ruff",
            "python -m py_compile",
        ],
        description="a plan step's own check command runs only when it starts with one of these",
    )
    approval_mode: ApprovalMode = Field(
        "auto_edit", description="the executor's approval mode (as agent.approval_mode)"
    )
    executor_tools: list[str] = Field(
        default_factory=lambda: [
            "read_file",
            "write_file",
            "replace",
            "list_directory",
            "grep_search",
            "run_shell_command",
        ],
        description="tools the executor's agent is offered (fewer tools: a shorter prompt for small models); "
        "the shell is offered only when the approval mode or agent.rules.allow_shell lets it run",
    )
    max_steps: int = Field(8, ge=1, description="steps a plan may have")
    agent_max_turns: int = Field(12, ge=1, description="agent turns per step")
    whole_file_steps: bool = Field(
        True,
        description="a step that names .py files first asks for them whole in one call (docs/guide/run.md)",
    )
    plan_max_tokens: int = Field(700, ge=64, description="tokens of the plan at most")
    timeouts: StageTimeouts = Field(default_factory=StageTimeouts)
