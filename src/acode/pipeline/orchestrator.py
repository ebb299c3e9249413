"""The orchestrator: runs stages in order, owns the transitions, the cycle count, verification retries
and escalation, persists the state after every stage and the summary at the end."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acode.errors import EXIT_INTERRUPTED, AcodeError, ModelTimeoutError
from acode.paths import ensure_runtime_ignore
from acode.pipeline.events import EVENTS_FILE, EventLog, now_iso
from acode.pipeline.executor import ExecutorStage
from acode.pipeline.models import RunState, StageName
from acode.pipeline.planner import PlannerStage
from acode.pipeline.records import write_record_json
from acode.pipeline.reviewer_stage import ReviewerStage
from acode.pipeline.stages import RunContext, Stage, StageResult, new_session_id, runs_dir
from acode.pipeline.stops import (
    SUMMARY_FAILED,
    Approved,
    Rejected,
    ReviewTimedOut,
    RunError,
    RunFailed,
    RunFinished,
    StageTimeout,
)
from acode.pipeline.summary import build_summary
from acode.pipeline.undo import record_start
from acode.pipeline.verifier import VerifierStage
from acode.secrets import redact_data
from acode.store.summaries import SummaryStore

if TYPE_CHECKING:
    from acode.config.settings import Settings
    from acode.llm.protocol import ChatModel
    from acode.pipeline.human import HumanGate
    from acode.tools.base import ToolRegistry

log = logging.getLogger("acode.pipeline")


@dataclass
class RunOutcome:
    session_id: str
    status: str
    exit_code: int
    summary: dict[str, Any]
    message: str = ""


class Orchestrator:
    def __init__(self, ctx: RunContext, stages: dict[str, Stage] | None = None):
        self.ctx = ctx
        self.stages: dict[str, Stage] = stages or {
            "plan": PlannerStage(),
            "execute": ExecutorStage(),
            "verify": VerifierStage(),
            "review": ReviewerStage(),
        }

    def run(self) -> RunOutcome:
        ctx, state = self.ctx, self.ctx.state
        state.status = "running"
        ctx.save_state()
        try:
            while True:
                stage = self.stages[state.next_stage]
                stage.on_enter(ctx)
                result = self._execute(stage)
                stage.on_exit(ctx, result)
                state.next_stage = self.transition(stage.name, result)
                ctx.save_state()
        except RunFinished as finished:
            return self._finish(
                finished.status, finished.exit_code, finished.message, getattr(finished, "code", "")
            )
        except KeyboardInterrupt:
            ctx.events.emit("interrupted", stage=state.next_stage, cycle=state.cycle)
            return self._finish(
                "interrupted",
                EXIT_INTERRUPTED,
                f"interrupted; resume with `acode run --resume {state.session_id}`",
            )

    def _execute(self, stage: Stage) -> StageResult:
        try:
            return stage.execute(self.ctx)
        except (RunFinished, KeyboardInterrupt):
            raise
        except ModelTimeoutError as exc:
            self.ctx.events.emit("timeout", stage=stage.name, message=exc.message)
            raise StageTimeout(stage.name, exc.message) from exc
        except AcodeError as exc:
            raise RunFailed(f"{stage.name} stage: {exc.message}", exc.code) from exc
        except Exception as exc:  # a bug must end the run with a summary, not a traceback
            log.exception("stage %s failed", stage.name)
            raise RunFailed(f"{stage.name} stage failed: {type(exc).__name__}: {exc}") from exc

    # -- transitions -----------------------------------------------------------------------------
    def transition(self, stage: str, result: StageResult) -> StageName:
        state, options = self.ctx.state, self.ctx.settings.pipeline
        if stage == "plan":
            return "execute"
        if stage == "execute":
            return "verify"
        if stage == "verify":
            if result.outcome == "ok" or state.verify_attempt >= options.max_verify_retries:
                return "review"
            state.verify_attempt += 1
            self.ctx.events.emit("verify_retry", attempt=state.verify_attempt, max=options.max_verify_retries)
            return "execute"
        if result.outcome == "approved":
            self.ctx.human.final_gate(self.ctx)
            raise Approved("approved by the reviewer")
        if result.outcome == "timeout":
            self._escalate("the review timed out", ReviewTimedOut(result.message))
        if state.cycle < state.max_cycles:
            review = state.last_review
            state.feedback = list(review.issues) if review else []
            state.feedback_notes = review.notes if review else ""
            state.cycle += 1
            self.ctx.events.emit(
                "replan", cycle=state.cycle, feedback=[i.model_dump() for i in state.feedback]
            )
            return "plan"
        self._escalate(
            f"the reviewer rejected the change in cycle {state.cycle} of {state.max_cycles}",
            Rejected(result.message),
        )
        raise AssertionError("unreachable")

    def _escalate(self, why: str, stop: RunFinished) -> None:
        self.ctx.events.emit("escalation", reason=why, cycle=self.ctx.state.cycle)
        if self.ctx.human.escalate(self.ctx, why):
            raise Approved(f"{why}; overridden by a person")
        raise stop

    # -- the end ---------------------------------------------------------------------------------
    def _finish(self, status: str, exit_code: int, message: str, code: str = "") -> RunOutcome:
        ctx, state = self.ctx, self.ctx.state
        state.status = status  # type: ignore[assignment]
        state.exit_code = exit_code
        state.ended_at = now_iso()
        if status in ("rejected", "failed", "declined", "timeout") and any(
            r.files_changed for r in state.step_results
        ):
            message = (f"{message}\nthe run's changes stay in the working tree; undo them with "
                       f"`acode run --undo {state.session_id}`").lstrip()
        if status in ("failed", "declined", "timeout"):
            state.error = f"[{code}] {message}" if code else message
        ctx.save_state()
        summary = redact_data(build_summary(state, ctx.root))  # also stored in the database below
        ctx.events.emit(
            "run_end", status=status, exit_code=exit_code, message=message, decision=summary["decision"]
        )
        write_record_json(ctx.run_dir / "summary.json", summary)
        if ctx.db_path is not None:
            try:
                SummaryStore(ctx.db_path).save(summary)
            except Exception as exc:
                raise RunError(
                    SUMMARY_FAILED,
                    f"could not store the summary of {state.session_id} in {ctx.db_path}: {exc}",
                    hint=f"the summary is also in {ctx.run_dir / 'summary.json'}",
                ) from exc
        return RunOutcome(state.session_id, status, exit_code, summary, message)


def start_run(
    root: Path,
    task: str,
    *,
    settings: Settings,
    model: ChatModel,
    tools: ToolRegistry,
    human: HumanGate,
    allow_dirty: bool = False,
    max_cycles: int | None = None,
    db_path: Path | None = None,
    listeners: list | None = None,
) -> RunOutcome:
    if not task.strip():
        raise RunError(
            "ACODE-RUN-012", "the task is empty", hint='acode run "add is_even(n) to util.py"', exit_code=2
        )
    start = record_start(root, allow_dirty=allow_dirty)
    state = RunState(
        session_id=new_session_id(),
        task=task.strip(),
        workspace=str(root),
        start_commit=start.commit,
        start_branch=start.branch,
        dirty_snapshot=start.dirty_snapshot,
        preexisting_untracked=start.preexisting_untracked,
        started_at=now_iso(),
        max_cycles=max_cycles or settings.pipeline.max_cycles,
    )
    ctx = _context(root, state, settings, model, tools, human, db_path, listeners)
    ensure_runtime_ignore(runs_dir(root).parent)
    ignore = runs_dir(root) / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# acode run records: not part of your project\n*\n")
    ctx.events.emit(
        "run_start",
        task=state.task,
        session_id=state.session_id,
        start_commit=start.commit,
        max_cycles=state.max_cycles,
        dirty_start=bool(start.dirty_snapshot),
    )
    return Orchestrator(ctx).run()


def resume_run(
    root: Path,
    state: RunState,
    *,
    settings: Settings,
    model: ChatModel,
    tools: ToolRegistry,
    human: HumanGate,
    db_path: Path | None = None,
    listeners: list | None = None,
) -> RunOutcome:
    if state.status not in ("interrupted", "failed", "running"):
        raise RunError(
            "ACODE-RUN-013",
            f"session {state.session_id} already ended: {state.status}",
            hint="start a new run, or undo this one with `acode run --undo`",
        )
    state.ended_at, state.exit_code, state.error = None, None, ""
    ctx = _context(root, state, settings, model, tools, human, db_path, listeners)
    ctx.events.emit("run_resume", stage=state.next_stage, cycle=state.cycle)
    return Orchestrator(ctx).run()


def _context(root, state, settings, model, tools, human, db_path, listeners) -> RunContext:
    run_dir = runs_dir(root) / state.session_id
    return RunContext(
        state=state,
        root=root,
        settings=settings,
        model=model,
        tools=tools,
        events=EventLog(run_dir / EVENTS_FILE, listeners),
        human=human,
        db_path=db_path,
    )


__all__ = ["Orchestrator", "RunOutcome", "resume_run", "start_run"]
