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
from acode.review.checking import check_findings
from acode.review.decision import cap_unconfirmed, decide_from_levels, decide_from_verdict, dimension_level, explain
from acode.review.evidence import cut_notes, fixed_lines, gather_evidence
from acode.review.lookaround import look_around
from acode.review.metered import MeteredModel
from acode.review.models import DimensionResult, Finding, ReviewContext, ReviewResult
from acode.review.packing import PackedDiffs, omitted_note, pack_diffs
from acode.review.regression import DIMENSION as REGRESSION_DIMENSION
from acode.review.regression import regression_findings
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
    """Review one change. Raises ModelOutputError only with ``on_model_failure: error``; a timeout
    returns the partial result with ``status="timeout"``."""
    say = progress or (lambda _: None)
    started = time.monotonic()
    metered = MeteredModel(model)
    # Only when asked: the command (and the tests) may come from the change under review (issue 14).
    test_command = (settings.test_command or "python -m pytest -q") if run_tests else None
    say("collecting evidence (ruff, structural check, secrets, tests)")
    evidence = gather_evidence(context, test_command=test_command, test_timeout=settings.test_timeout_seconds)
    deadline = time.monotonic() + settings.timeout_seconds

    def remaining() -> float:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ModelTimeoutError("ACODE-REVIEW-030", f"the review took longer than {settings.timeout_seconds:g} s")
        return left

    system = render(PKG, "system.j2")
    packed = _pack(context, evidence.findings, metered, settings, system)
    result = ReviewResult(
        decision=decide_from_verdict(None, "not decided yet", []), evidence=evidence.findings,
        tests=evidence.tests, packing=packed.summary, model=model.name, target=context.target,
        base_ref=context.base_ref, base_sha=context.base_sha, head_ref=context.head_ref,
        head_sha=context.head_sha, context_hash=context.content_hash(), cut=cut_notes(context),
    )
    enabled = settings.dimensions.enabled()
    dimensions: dict[str, DimensionResult] = {}
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
        messages = base_messages(system, _context_text(context, packed, evidence.findings, looked))
        if settings.decision_strategy == "verdict":
            say("asking for an overall verdict")
            answer = ask_verdict(metered, messages, timeout=remaining(), max_tokens=settings.max_tokens_per_answer)
            result.decision = (decide_from_verdict(answer.verdict, answer.reason, evidence.findings)
                               if not isinstance(answer, str) else decide_from_verdict(None, answer, evidence.findings))
            return _finish(result, metered, started)
        if settings.strategy == "checks_only":
            proposals = Proposals(findings={name: [] for name in enabled})
        else:
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
                _fill(dimensions, partial.proposals, {}, evidence.findings, settings)
                raise ModelTimeoutError("ACODE-REVIEW-030", "timed out while proposing findings") from None
        if proposals.failed and settings.on_model_failure == "error":
            name, why = next(iter(proposals.failed.items()))
            raise ModelOutputError("ACODE-REVIEW-020", f"the model's answer for {name} could not be read: {why}",
                                   hint="set reviewer.on_model_failure: reject, or use a larger model")
        checked: dict[str, list[Finding]] = {}
        try:
            checked = check_findings(
                metered, messages, proposals.findings, packed_files(context, packed),
                confirm_at=settings.thresholds.confirm, count_context=settings.thresholds.count_context_lines,
                timeout=remaining, progress=say,
                on_checked=lambda f: checked.setdefault(f.dimension, []).append(f),
            )
            if REGRESSION_DIMENSION in enabled:
                checked.setdefault(REGRESSION_DIMENSION, []).extend(regression_findings(
                    context, metered, settings.regression, timeout=remaining, progress=say,
                    paths={f.path for f in packed_files(context, packed)}, fixed=fixed_lines(evidence.findings),
                ))
        finally:
            _fill(dimensions, proposals, checked, evidence.findings, settings)
    except ModelTimeoutError as exc:
        log.info("review timed out: %s", exc.message)
        result.status = "timeout"
        for name in enabled:
            dimensions.setdefault(name, DimensionResult(name=name, status="timeout", error="not assessed before the timeout",
                                                        explanation="not assessed before the timeout"))
    result.dimensions = [dimensions[name] for name in enabled if name in dimensions]
    if settings.decision_strategy == "findings" or result.status == "timeout":
        result.decision = decide_from_levels(result.dimensions, evidence.findings, settings)
    return _finish(result, metered, started)


def _fill(dimensions: dict[str, DimensionResult], proposals: Proposals, checked: dict[str, list[Finding]],
          evidence: list[Finding], settings: ReviewerSettings) -> None:
    """Dimension results for every dimension whose proposals were read and fully checked."""
    for name, why in proposals.failed.items():
        status = "timeout" if why == "timed out" else "failed"
        error = f"the model's answer was unusable: {why}" if status == "failed" else "not assessed before the timeout"
        dimensions[name] = DimensionResult(name=name, status=status, error=error, explanation=error[:200])
    for name, items in proposals.findings.items():
        found = checked.get(name, [])
        if len(found) < len(items):
            continue  # its checks did not finish: left for the timeout handling
        own_evidence = [f for f in evidence if f.dimension == name]
        found = [cap_unconfirmed(f, settings.thresholds, evidence) for f in found]
        combined = found + own_evidence
        dimensions[name] = DimensionResult(
            name=name, level=dimension_level(combined, settings.thresholds), findings=found,
            explanation=explain(combined),
        )


def _finish(result: ReviewResult, metered: MeteredModel, started: float) -> ReviewResult:
    result.tokens = metered.stats
    result.duration_seconds = round(time.monotonic() - started, 3)
    return result


def _pack(context: ReviewContext, evidence: list[Finding], model: ChatModel, settings: ReviewerSettings,
          system: str) -> PackedDiffs:
    """Diffs within (window - output reserve - everything else in the prompt)."""
    files = [f.model_copy(update={"diff": redact(f.diff)}) for f in context.files]
    empty = PackedDiffs("", pack_diffs([], model.count_tokens, 0).summary)
    lines, names = line_choices(files)
    schema = json.dumps(proposal_model(settings.max_findings_per_dimension, tuple(settings.dimensions.enabled()), 1,
                                       lines[:300] or None, names or None).model_json_schema())
    overhead = sum(model.count_tokens(text) for text in (
        system, schema, render(PKG, "single_call.j2", dimensions=[], max_findings=9, candidates=True, several_files=True),
        render(PKG, "dimension.j2", name="code_quality", title="x", max_findings=9, candidates=True,
               several_files=True),
        _context_text(context.model_copy(update={"files": files}), empty, evidence),
    )) + 64
    if settings.lookaround.enabled:
        overhead += settings.lookaround.max_calls * settings.lookaround.max_result_chars // 3
    reserve = int(model.context_window * settings.output_reserve)
    budget = max(200, model.context_window - reserve - overhead)
    return pack_diffs(files, model.count_tokens, budget)


def packed_files(context: ReviewContext, packed: PackedDiffs):
    """The files whose diffs the model saw (findings are grounded against these only)."""
    shown = set(packed.summary.included)
    return [f for f in context.files if f.path in shown]


def _context_text(context: ReviewContext, packed: PackedDiffs, evidence: list[Finding], looked: str = "") -> str:
    return render(
        PKG, "context.j2", intent=redact(context.effective_intent()), commits=context.commits,
        sections={k: redact(v) for k, v in context.sections.items()}, files=context.files,
        omitted=omitted_note(packed.summary), evidence=[f for f in evidence if f.file or f.rule.startswith("tests/")],
        looked=looked, diffs=packed.text or "(no diff could be shown)",
    )
