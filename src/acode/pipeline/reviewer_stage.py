"""Reviewer: the review engine (acode.review) on the whole task — request, plan, execution results,
verification results and the diff of everything changed since the start commit (new files included).
When the verification failed, its failed checks are first run on the start commit too
(``verification_contrast``): what the change breaks is evidence the decision is derived from, and a
review never approves past it. A review that outlives ``reviewer.timeout_seconds`` is reported as a
timeout (the orchestrator escalates) instead of blocking the run; its partial result is kept."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from acode.pipeline import gitops
from acode.pipeline.models import ReviewIssue, ReviewOutcome
from acode.pipeline.stages import RunContext, Stage, StageResult
from acode.pipeline.stops import REVIEW_FAILED, RunFailed
from acode.prompts import render

if TYPE_CHECKING:
    from acode.review.service import ReviewService

log = logging.getLogger("acode.pipeline")

# Beyond its own deadline the engine gets this long to hand back its partial result before the run
# stops waiting (a model call in flight cannot be interrupted).
GRACE_SECONDS = 5.0


class ReviewerStage(Stage):
    name = "review"

    def execute(self, ctx: RunContext) -> StageResult:
        started = time.monotonic()
        context = build_review_context(ctx)
        ran = _compare_failed_checks(ctx, context)
        timeout = ctx.settings.reviewer.timeout_seconds
        from acode.tools.builtin import REVIEW_TOOL_NAMES

        service, tools = review_service(ctx), ctx.tools.subset(REVIEW_TOOL_NAMES)
        result, error = _run_with_deadline(
            lambda: service.review(context, ctx.model, tools=tools, tests_ran=ran), timeout + GRACE_SECONDS)
        if error is not None:
            raise RunFailed(f"the review failed: {error}", REVIEW_FAILED)
        outcome = to_outcome(result, ctx.state.cycle) if result is not None else ReviewOutcome(
            cycle=ctx.state.cycle, decision="TIMEOUT", partial=True,
            notes=f"the review did not finish within {timeout:.0f} s (reviewer.timeout_seconds)",
        )
        from acode.pipeline.verification_contrast import gate

        outcome = gate(outcome, ran)
        outcome.duration_s = round(time.monotonic() - started, 3)
        outcome.review_id = store_review(ctx, service, result)
        ctx.state.reviews.append(outcome)
        ctx.events.emit(
            "review_decision",
            cycle=outcome.cycle,
            decision=outcome.decision,
            levels=outcome.levels,
            issues=[i.model_dump() for i in outcome.issues],
            notes=outcome.notes,
            partial=outcome.partial,
            review_id=outcome.review_id,
        )
        if outcome.decision == "TIMEOUT":
            ctx.events.emit("timeout", stage="review", seconds=timeout, partial=outcome.model_dump())
            return StageResult("timeout", outcome.notes)
        return StageResult("approved" if outcome.decision == "APPROVED" else "rejected", outcome.notes)


def _compare_failed_checks(ctx: RunContext, context: Any) -> list:
    """The last verification's failed checks, run on the start commit too (``verification_contrast``);
    the verification section the model reads then says which failures the change brings."""
    verification = ctx.state.verifications[-1] if ctx.state.verifications else None
    if verification is None or verification.passed:
        return []
    from acode.command_sandbox import command_sandbox
    from acode.pipeline.verification_contrast import compare_with_start

    sandbox = command_sandbox(ctx.settings.sandbox).sandbox
    ran = compare_with_start(context, verification, ctx.settings.pipeline.timeouts.verifier, sandbox)
    compared = [c for c in verification.checks if c.compared is not None]
    if compared:
        ctx.events.emit("verification_compared", checks=[
            {"command": c.command, **c.compared.model_dump()} for c in compared])
        ctx.save_state()
        context.sections["verification"] = _verification_section(verification)
    return ran


def _verification_section(verification) -> str:
    from acode.pipeline.verification_report import comparison_lines

    compared = {c.command: comparison_lines(c.compared) for c in (verification.checks if verification else [])
                if c.compared is not None}
    return render("acode.pipeline", "review_verification.j2", verification=verification, compared=compared)


def build_review_context(ctx: RunContext):
    from acode.review.models import ReviewContext

    reviewer = ctx.settings.reviewer
    state = ctx.state
    files = gitops.changed_files(ctx.root, state.start_commit, context_lines=reviewer.context_lines,
                                 max_diff_chars=reviewer.max_diff_chars)
    sections = {
        "plan": render("acode.pipeline", "review_plan.j2", plan=state.plan, version=len(state.plans)),
        "execution": render("acode.pipeline", "review_execution.j2", results=state.step_results),
        "verification": _verification_section(state.verifications[-1] if state.verifications else None),
    }
    return ReviewContext(
        target="pipeline",
        root=ctx.root,
        base_ref=state.start_commit[:12],
        base_sha=state.start_commit,
        head_ref="working tree",
        head_rev=None,
        intent=state.task,
        files=files,
        sections=sections,
    )


def review_service(ctx: RunContext) -> ReviewService:
    """The review service with the run's settings: `acode run` works on the user's own task, so a
    configured test command runs; stored with source='run'."""
    from acode.review.service import ReviewService

    reviewer = ctx.settings.reviewer
    return ReviewService(reviewer, ctx.settings.model, run_tests=reviewer.test_command is not None,
                         db_path=ctx.db_path, source="run")


def store_review(ctx: RunContext, service: ReviewService, result: Any) -> int | str | None:
    """Keep the review (a partial one too) in the review store."""
    if result is None:
        return None
    try:
        return service.store(result)
    except Exception:  # the run's own summary still holds the outcome
        log.exception("could not store the review of run %s", ctx.state.session_id)
        return None


def to_outcome(result: Any, cycle: int) -> ReviewOutcome:
    """The engine's ReviewResult, as the pipeline needs it."""
    issues = []
    for finding in result.all_findings():
        if not finding.counts:
            continue
        lines = ""
        if finding.line:
            lines = (
                f"{finding.line}-{finding.end_line}"
                if finding.end_line and finding.end_line != finding.line
                else str(finding.line)
            )
        issues.append(
            ReviewIssue(
                dimension=finding.dimension,
                severity=finding.severity,
                file=finding.file or "",
                lines=lines,
                message=finding.message,
                suggestion=finding.suggestion,
            )
        )
    timed_out = result.status == "timeout"
    return ReviewOutcome(
        cycle=cycle,
        decision="TIMEOUT" if timed_out else result.decision.verdict,
        levels={d.name: d.level or d.status for d in result.dimensions},
        issues=issues,
        notes="; ".join(result.decision.reasons),
        partial=result.status != "complete" or any(d.status != "assessed" for d in result.dimensions),
    )


def _run_with_deadline(work, seconds: float) -> tuple[Any, BaseException | None]:
    """(result, error) of ``work()``, or (None, None) when it does not finish in ``seconds``. A daemon
    thread, so a hung model call cannot keep the process alive; Ctrl-C still reaches the main thread."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = work()
        except BaseException as exc:  # noqa: BLE001 - handed to the caller
            box["error"] = exc

    thread = threading.Thread(target=target, name="acode-review", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        return None, None
    return box.get("result"), box.get("error")
