"""The review service: evidence -> packed context -> (look around) -> proposed findings -> checks ->
levels -> decision. No CLI here; `acode review` and the Reviewer stage of `acode run` both call
``review_change``."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from acode.config.review import ReviewerSettings
from acode.errors import ModelOutputError, ModelTimeoutError
from acode.llm.protocol import ChatModel
from acode.llm.scoring import scorer_of
from acode.llm.types import Message
from acode.prompts import render
from acode.review.assessment import (
    PKG,
    PartialProposals,
    Proposals,
    ask_verdict,
    base_messages,
    line_choices,
    proposal_model,
    propose,
)
from acode.review.budget import Pace, ReviewPlan, diff_tokens_for, expected_answer_tokens, proposal_seconds
from acode.review.checking import check_findings
from acode.review.decision import (
    cap_unconfirmed,
    decide_from_levels,
    decide_from_verdict,
    dimension_level,
    explain,
)
from acode.review.evidence import cut_notes, fixed_lines, gather_evidence
from acode.review.lookaround import look_around
from acode.review.metered import MeteredModel
from acode.review.models import Decision, DimensionResult, Finding, ReviewContext, ReviewResult
from acode.review.packing import PackedDiffs, omitted_note, pack_diffs
from acode.review.regression import CALIBRATION_CHARS, compare_regions, plan_regions
from acode.review.regression import DIMENSION as REGRESSION_DIMENSION
from acode.review.related import look_around as look_around_change
from acode.review.related import related_test_command
from acode.secrets import redact
from acode.tools.base import ToolRegistry

log = logging.getLogger("acode.review")

Progress = Callable[[str], None]


def review_change(
    context: ReviewContext,
    model: ChatModel,
    settings: ReviewerSettings,
    tools: ToolRegistry | None = None,
    *,
    run_tests: bool = False,
    progress: Progress | None = None,
    naive_layout: bool = False,
) -> ReviewResult:
    """Review one change within ``settings.timeout_seconds`` (see acode.review.budget for the plan). Raises
    ModelOutputError only with ``on_model_failure: error``. When the limit passes mid-plan, the result
    keeps what was assessed (``status="partial"``); ``status="timeout"`` only when the model assessed
    nothing at all."""
    say = progress or (lambda _: None)
    started = time.monotonic()
    budget = settings.budget
    own = getattr(model, "tokens_per_second", None)
    prior = own or (budget.prompt_tokens_per_second, budget.generated_tokens_per_second)
    metered = MeteredModel(model, Pace(*prior, known=own is not None))
    say("looking at the project around the change (callers, tests)")
    around = look_around_change(context)
    # Only when asked: the command (and the tests) may come from the change under review (issue 14).
    test_command = (settings.test_command or related_test_command(around.tests) or "python -m pytest -q"
                    ) if run_tests else None
    say("collecting evidence (ruff, structural check, secrets, tests)")
    evidence = gather_evidence(context, test_command=test_command, test_timeout=settings.test_timeout_seconds)
    model_started = time.monotonic()
    deadline = model_started + settings.timeout_seconds

    def remaining() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ModelTimeoutError("ACODE-REVIEW-030", f"the review took longer than {settings.timeout_seconds:g} s")
        return left

    def plannable() -> float | None:
        """Seconds the plan may still spend (None: no planning)."""
        if not budget.enabled:
            return None
        return settings.timeout_seconds * budget.safety - (time.monotonic() - model_started)

    system = render(PKG, "system.j2")
    packed, overhead = _pack(context, evidence.findings, metered, settings, system, around.text())
    plan = ReviewPlan(limit_seconds=settings.timeout_seconds)
    result = ReviewResult(
        decision=decide_from_verdict(None, "not decided yet", []), evidence=evidence.findings,
        tests=evidence.tests, packing=packed.summary, model=model.name, target=context.target,
        base_ref=context.base_ref, base_sha=context.base_sha, head_ref=context.head_ref,
        head_sha=context.head_sha, context_hash=context.content_hash(), plan=plan,
        cut=cut_notes(context),
    )
    enabled = settings.dimensions.enabled()
    dimensions: dict[str, DimensionResult] = {}
    regression: list[Finding] = []
    proposals: Proposals | None = None
    checked: dict[str, list[Finding]] = {}
    try:
        looked = ""
        if tools is not None and settings.lookaround.enabled:
            say("looking around the repository")
            found = look_around(
                metered, base_messages(system, _context_text(context, packed, evidence.findings)), tools,
                context.root, max_calls=settings.lookaround.max_calls,
                max_result_chars=settings.lookaround.max_result_chars, timeout=remaining, progress=say,
            )
            looked, result.tool_calls = found.notes, found.calls
        if settings.decision_strategy == "verdict":
            messages = base_messages(system, _context_text(context, packed, evidence.findings, looked))
            say("asking for an overall verdict")
            answer = ask_verdict(metered, messages, timeout=remaining(), max_tokens=settings.max_tokens_per_answer)
            result.decision = (decide_from_verdict(answer.verdict, answer.reason, evidence.findings)
                               if not isinstance(answer, str) else decide_from_verdict(None, answer, evidence.findings))
            return _finish(result, metered, started)
        if REGRESSION_DIMENSION in enabled:
            _regression_stage(context, metered, settings, plan, packed, plannable, remaining, say, regression,
                              fixed_lines(evidence.findings))
        if settings.strategy != "checks_only":
            packed = _fit_to_time(context, packed, overhead, metered, settings, plan, plannable, enabled, system)
            result.packing = packed.summary
            if plan.proposals:
                messages = base_messages(system, _context_text(context, packed, evidence.findings, looked,
                                                               around.text()))
                box: dict[str, Proposals] = {}
                try:
                    proposals = _proposals(context, packed, metered, messages, settings, enabled, remaining, say,
                                           naive_layout, box)
                finally:
                    proposals = proposals or box.get("partial")
                check_findings(
                    metered, messages, proposals.findings, packed_files(context, packed),
                    confirm_at=settings.thresholds.confirm, count_context=settings.thresholds.count_context_lines,
                    timeout=remaining, progress=say,
                    on_checked=lambda f: checked.setdefault(f.dimension, []).append(f),
                )
    except ModelTimeoutError as exc:
        log.info("review ran out of time: %s", exc.message)
        finished = _finished(enabled, plan, proposals, checked)
        result.status = "partial" if regression or finished else "timeout"
        _note_unfinished(plan, proposals, checked)
    plan.note_rates(metered.pace)
    plan.regions_compared = len(regression)
    if result.status == "complete" and plan.skipped:
        result.status = "partial"  # the plan left something out: decided on what was assessed, and says so
    if result.status == "timeout":
        for name in enabled:
            dimensions[name] = DimensionResult(name=name, status="timeout", error="not assessed before the timeout",
                                               explanation="not assessed before the timeout")
    else:
        _fill(dimensions, enabled, proposals, checked, regression, evidence.findings, settings,
              _unfinished(enabled, plan, proposals, checked, settings))
    result.dimensions = [dimensions[name] for name in enabled if name in dimensions]
    result.decision = decide_from_levels(result.dimensions, evidence.findings, settings)
    if result.status == "partial" and budget.on_partial == "reject" and result.decision.approved:
        result.decision = Decision(verdict="REJECTED", strategy="findings", reasons=[
            "the review is partial (" + "; ".join(plan.skipped) + ") and reviewer.budget.on_partial is reject"])
    return _finish(result, metered, started)


def _unfinished(enabled: list[str], plan: ReviewPlan, proposals: Proposals | None,
                checked: dict[str, list[Finding]], settings: ReviewerSettings) -> list[str]:
    """Dimensions the model did not finish: all of them when proposals were planned but skipped or cut
    short, the intent alignment when the regression check left edits out."""
    out = []
    if settings.strategy != "checks_only":
        finished = _finished(enabled, plan, proposals, checked)
        out = [d for d in enabled if d not in finished]
    if plan.regions_compared < plan.regions_planned or any("regression check" in s for s in plan.skipped):
        out.append(REGRESSION_DIMENSION)
    return [d for d in enabled if d in out]


def _regression_stage(context, metered, settings, plan, packed, plannable, remaining, say, out,
                      fixed: dict[str, set[int]]) -> None:
    """Plan and compare the edits; ``fixed``: lines the evidence shows fixed (measured, not judged)."""
    share = settings.budget.regression_share if settings.strategy != "checks_only" else 1.0
    left = plannable()
    seconds = None if left is None else max(0.0, left * share)
    regions = plan_regions(context, metered, settings.regression, seconds=seconds,
                           paths={f.path for f in packed_files(context, packed)})
    plan.regions_found, plan.regions_planned = regions.found, len(regions.regions)
    plan.regression_seconds_estimated = regions.estimated_seconds
    stage_end = None if left is None else time.monotonic() + seconds

    def seconds_left() -> float | None:
        return None if stage_end is None else stage_end - time.monotonic()

    try:
        compare_regions(context, metered, settings.regression, regions, timeout=remaining, progress=say, out=out,
                        seconds_left=seconds_left, fixed=fixed)
    finally:
        note = regions.note(settings.regression.max_edit_lines)
        if note:
            say(note)
        if regions.left_out.get("time"):
            plan.skipped.append(f"regression check: {regions.left_out['time']} edit(s) not compared "
                                f"(did not fit {seconds:.0f} s of the time plan)")


def _measure_speed(metered: MeteredModel, system: str, seconds: float) -> None:
    """One short reading (a few dozen tokens) to measure a model nothing has been asked yet: the head of
    the system prompt, scored where the backend can, else a one-token answer."""
    scorer = scorer_of(metered)
    if scorer is not None:
        metered.record(scorer.score_text(system[:CALIBRATION_CHARS], "", timeout=seconds).usage)
    else:
        metered.complete([Message.user("Reply with OK.")], max_tokens=1, temperature=0.0, timeout=seconds)


def _fit_to_time(context, packed, overhead, metered, settings, plan, plannable, enabled, system) -> PackedDiffs:
    """The diffs the proposals and their checks can read in the time left; none when too little fits."""
    left = plannable()
    calls = 1 if settings.strategy == "single_call" else len(enabled)
    findings = settings.max_findings_per_dimension * (1 if settings.strategy == "single_call" else len(enabled))
    per_call = settings.max_findings_per_dimension
    shape = {"answer_tokens": expected_answer_tokens(per_call, settings.max_tokens_per_answer), "findings": findings,
                 "calls": calls}
    if left is None:
        plan.diff_tokens = packed.summary.used_tokens
        return packed
    if not metered.pace.measured and left > 1:
        _measure_speed(metered, system, left)
        left = plannable()
    fits = diff_tokens_for(metered.pace, left, overhead, **shape)
    if fits < min(settings.budget.min_diff_tokens, max(1, packed.summary.used_tokens)):
        plan.proposals = False
        plan.skipped.append(f"model proposals and their checks: about {left:.0f} s were left, too little to read "
                            f"{settings.budget.min_diff_tokens} tokens of diff at "
                            f"{metered.pace.prompt_rate():.0f} tokens/s")
        return packed
    if fits < packed.summary.used_tokens:
        packed = pack_diffs(_redacted(context), metered.count_tokens, fits, over_budget="did not fit the time plan")
        cut = [p for p, why in packed.summary.omitted.items() if why == "did not fit the time plan"]
        plan.skipped.append(f"diffs shown to the model cut to {fits} tokens to fit the time plan"
                            + (f"; not shown: {', '.join(cut)}" if cut else ""))
        if not packed.summary.included:
            plan.proposals = False
            plan.skipped.append("model proposals: no file's diff fitted the time plan")
    plan.diff_tokens = packed.summary.used_tokens
    plan.proposal_seconds_estimated = round(proposal_seconds(metered.pace, overhead + packed.summary.used_tokens,
                                                             **shape), 1)
    return packed


def _proposals(context, packed, metered, messages, settings, enabled, remaining, say, naive_layout,
               box: dict[str, Proposals]) -> Proposals:
    try:
        proposals = propose(
            metered, messages, enabled, strategy=settings.strategy,
            max_findings=settings.max_findings_per_dimension, max_tokens=settings.max_tokens_per_answer,
            min_findings=1 if settings.require_candidates else 0,
            choices=line_choices(packed_files(context, packed)),
            stop_on_failure=settings.on_model_failure == "error",
            timeout=remaining, parallel=settings.parallel_requests, naive=naive_layout, progress=say,
        )
    except PartialProposals as partial:
        box["partial"] = partial.proposals
        raise ModelTimeoutError("ACODE-REVIEW-030", "timed out while proposing findings") from None
    if proposals.failed and settings.on_model_failure == "error":
        name, why = next(iter(proposals.failed.items()))
        raise ModelOutputError("ACODE-REVIEW-020", f"the model's answer for {name} could not be read: {why}",
                               hint="set reviewer.on_model_failure: reject, or use a larger model")
    return proposals


def _note_unfinished(plan: ReviewPlan, proposals: Proposals | None, checked: dict[str, list[Finding]]) -> None:
    if not plan.proposals:
        return
    if proposals is None:
        plan.skipped.append("model proposals: the time limit passed before they were read")
        return
    unread = [d for d, why in proposals.failed.items() if why == "timed out"]
    if unread:
        plan.skipped.append(f"model proposals for {', '.join(unread)}: not read before the time limit")
    total = sum(len(items) for items in proposals.findings.values())
    done = sum(len(items) for items in checked.values())
    if done < total:
        plan.skipped.append(f"{total - done} of {total} proposed finding(s) not checked before the time limit "
                            "(left out, not counted)")


def _finished(enabled: list[str], plan: ReviewPlan, proposals: Proposals | None,
              checked: dict[str, list[Finding]]) -> list[str]:
    """Dimensions whose model proposals were read and all checked (none when proposals were not planned)."""
    if not plan.proposals or proposals is None:
        return []
    return [d for d in enabled if d in proposals.findings and len(checked.get(d, [])) >= len(proposals.findings[d])]


def _fill(dimensions: dict[str, DimensionResult], enabled: list[str], proposals: Proposals | None,
          checked: dict[str, list[Finding]], regression: list[Finding], evidence: list[Finding],
          settings: ReviewerSettings, unfinished: list[str]) -> None:
    """A result for every enabled dimension from what was assessed: its checked findings, the regression
    findings (intent alignment) and its deterministic evidence. A dimension whose proposal could not be read
    is not assessed (which rejects); proposals that were skipped or not checked in time are left out and
    named in the plan."""
    failed = {d: why for d, why in (proposals.failed if proposals else {}).items() if why != "timed out"}
    for name in enabled:
        if name in failed:
            error = f"the model's answer was unusable: {failed[name]}"
            dimensions[name] = DimensionResult(name=name, status="failed", error=error, explanation=error[:200])
            continue
        found = [cap_unconfirmed(f, settings.thresholds, evidence) for f in checked.get(name, [])]
        found += regression if name == REGRESSION_DIMENSION else []
        combined = found + [f for f in evidence if f.dimension == name]
        note = explain(combined)
        if name in unfinished:
            note = f"the model's part was not finished before the time limit; {note}"
        dimensions[name] = DimensionResult(name=name, level=dimension_level(combined, settings.thresholds),
                                           findings=found, explanation=note,
                                           status="partial" if name in unfinished else "assessed")


def _finish(result: ReviewResult, metered: MeteredModel, started: float) -> ReviewResult:
    result.tokens = metered.stats
    result.duration_seconds = round(time.monotonic() - started, 3)
    return result


def _pack(context: ReviewContext, evidence: list[Finding], model: ChatModel, settings: ReviewerSettings,
          system: str, around: str = "") -> tuple[PackedDiffs, int]:
    """Diffs within (window - output reserve - everything else in the prompt), and the tokens of everything
    else in the prompt."""
    files = _redacted(context)
    empty = PackedDiffs("", pack_diffs([], model.count_tokens, 0).summary)
    lines, names = line_choices(files)
    schema = json.dumps(proposal_model(settings.max_findings_per_dimension, tuple(settings.dimensions.enabled()), 1,
                                       lines[:300] or None, names or None).model_json_schema())
    overhead = sum(model.count_tokens(text) for text in (
        system, schema, render(PKG, "single_call.j2", dimensions=[], max_findings=9, candidates=True, several_files=True),
        render(PKG, "dimension.j2", name="code_quality", title="x", max_findings=9, candidates=True,
               several_files=True),
        _context_text(context.model_copy(update={"files": files}), empty, evidence, around=around),
    )) + 64
    if settings.lookaround.enabled:
        overhead += settings.lookaround.max_calls * settings.lookaround.max_result_chars // 3
    reserve = int(model.context_window * settings.output_reserve)
    budget = max(200, model.context_window - reserve - overhead)
    return pack_diffs(files, model.count_tokens, budget), overhead


def _redacted(context: ReviewContext):
    return [f.model_copy(update={"diff": redact(f.diff)}) for f in context.files]


def packed_files(context: ReviewContext, packed: PackedDiffs):
    """The files whose diffs the model saw (findings are grounded against these only)."""
    shown = set(packed.summary.included)
    return [f for f in context.files if f.path in shown]


def _context_text(context: ReviewContext, packed: PackedDiffs, evidence: list[Finding], looked: str = "",
                  around: str = "") -> str:
    return render(
        PKG, "context.j2", intent=redact(context.effective_intent()), commits=context.commits,
        sections={k: redact(v) for k, v in context.sections.items()}, files=context.files,
        omitted=omitted_note(packed.summary), evidence=[f for f in evidence if f.file or f.rule.startswith("tests/")],
        looked=looked, around=redact(around), diffs=packed.text or "(no diff could be shown)",
    )
