"""The data a run produces and persists: plans, step results, verification, review outcomes, run state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

StageName = Literal["plan", "execute", "verify", "review", "done"]
RunStatus = Literal["running", "approved", "rejected", "declined", "timeout", "failed", "interrupted"]
Decision = Literal["APPROVED", "REJECTED", "TIMEOUT", "ERROR"]


class PlanStep(BaseModel):
    description: str = Field(description="what to change, concretely (files, functions)")
    check: str = Field("", description="how to tell the step is done, in words")
    check_command: str = Field(
        "", description="a shell command that checks the step, e.g. pytest -q; or empty"
    )


class Plan(BaseModel):
    """What the planner model answers (validated against this schema)."""

    summary: str = Field(description="one sentence: the approach")
    steps: list[PlanStep] = Field(min_length=1)


class StepResult(BaseModel):
    index: int  # 1-based step number; 0 for a fix after a failed verification
    description: str
    status: Literal["done", "failed", "timeout", "interrupted"]
    output: str = ""
    stop_reason: str = ""
    files_changed: list[str] = Field(default_factory=list)
    duration_s: float = 0.0
    attempt: int = 0  # 0 = first execution, N = N-th retry after a failed verification

    @property
    def label(self) -> str:
        """How people (and the executor's prompt) name it: "step 2", or "fix 1" for the first fix."""
        return step_label(self.index, self.attempt)


def step_label(index: int, attempt: int) -> str:
    return f"step {index}" if index else f"fix {attempt}"


class CheckComparison(BaseModel):
    """A failed check run again on the run's start commit (pipeline.verification_contrast)."""

    regressed: list[str] = Field(default_factory=list)  # did not fail at the start, fail with the change
    at_start: dict[str, str] = Field(default_factory=dict)  # of those, the ones that did not pass: outcome
    new_failing: list[str] = Field(default_factory=list)  # tests the change adds, failing
    failing_before: list[str] = Field(default_factory=list)  # fail at the start too
    exit_code: int | None = None  # of the check run again with the change
    base_exit_code: int | None = None  # None: the start could not be run (see note)
    note: str = ""


class CheckResult(BaseModel):
    command: str
    source: Literal["project", "step"]
    passed: bool
    exit_code: int | None = None
    output: str = ""  # the tail that matters
    duration_s: float = 0.0
    skipped: str = ""  # why it was not run, when it was not
    timed_out: bool = False
    started: bool = True  # False: the command could not be started (output says why)
    shell: bool = False  # run through the shell (configured pipeline.verify_commands)
    compared: CheckComparison | None = None  # a failure, compared with the start commit

    @property
    def could_not_run(self) -> bool:
        return not self.skipped and (self.timed_out or not self.started)


class Verification(BaseModel):
    attempt: int
    passed: bool
    checks: list[CheckResult] = Field(default_factory=list)

    def failure_output(self, limit: int = 3000) -> str:
        parts = [
            f"$ {c.command}  (exit {c.exit_code})\n{c.output}"
            for c in self.checks
            if not c.passed and not c.skipped
        ]
        return "\n\n".join(parts)[-limit:]


class ReviewIssue(BaseModel):
    dimension: str = ""
    severity: str = ""
    file: str = ""
    lines: str = ""
    message: str
    suggestion: str = ""


class ReviewOutcome(BaseModel):
    """The pipeline's view of one review (whatever engine produced it)."""

    cycle: int
    decision: Decision
    levels: dict[str, str] = Field(default_factory=dict)  # dimension -> level
    issues: list[ReviewIssue] = Field(default_factory=list)
    notes: str = ""  # the reviewer's reasoning / summary
    partial: bool = False  # a timeout or failure left some dimensions unassessed
    review_id: str | int | None = None  # id in the review store
    duration_s: float = 0.0


class HumanDecision(BaseModel):
    at: str
    choice: Literal["approve", "reject", "override", "decline_override"]
    via: Literal["prompt", "flag", "policy"]
    reason: str = ""


class RunState(BaseModel):
    """Everything needed to resume a run; written to .acode/runs/<session>/state.json after each stage."""

    session_id: str
    task: str
    workspace: str
    start_commit: str
    start_branch: str = ""
    dirty_snapshot: str = ""  # `git stash create` commit of a dirty start (with --allow-dirty)
    preexisting_untracked: list[str] = Field(default_factory=list)
    started_at: str
    ended_at: str | None = None
    status: RunStatus = "running"
    exit_code: int | None = None
    next_stage: StageName = "plan"
    cycle: int = 1
    max_cycles: int = 3
    plans: list[Plan] = Field(default_factory=list)  # plans[i] is plan v(i+1)
    feedback: list[ReviewIssue] = Field(default_factory=list)  # issues of the last rejection
    feedback_notes: str = ""
    step_results: list[StepResult] = Field(default_factory=list)  # of the current cycle
    verify_attempt: int = 0
    verifications: list[Verification] = Field(default_factory=list)  # of the current cycle
    reviews: list[ReviewOutcome] = Field(default_factory=list)
    human: list[HumanDecision] = Field(default_factory=list)
    override: dict[str, Any] | None = None  # {reason, at, rejected_decision}
    error: str = ""

    @property
    def plan(self) -> Plan | None:
        return self.plans[-1] if self.plans else None

    @property
    def last_review(self) -> ReviewOutcome | None:
        return self.reviews[-1] if self.reviews else None
