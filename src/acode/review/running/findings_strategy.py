"""The default review strategy: the decision comes from findings, never from the model's overall
impression. In order, within the time plan (``judging.time_plan``): the model's question about each
behavioural difference no rule decided; the regression check compares each edit's old and new version
(where the diff ran, only inside functions whose difference the question left open); the model proposes
findings per dimension (or in one call) on the diffs that fit the time left; each proposal is checked by a
yes/no question; every dimension gets a level from its checked findings and its deterministic evidence.
Running out of time keeps what was assessed (``partial``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

from acode.errors import ModelError, ModelOutputError, ModelTimeoutError
from acode.llm.no_model import NoModelError
from acode.llm.scoring import scorer_of
from acode.llm.types import Message
from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.deciding.dimension_results import Assessed, fill_dimensions, note_unfinished
from acode.review.deciding.levels import decide_from_levels, held_to_partial
from acode.review.evidence.behaviour.diff import FunctionResult
from acode.review.evidence.behaviour.findings import ASK, ran_the_same, reweigh
from acode.review.evidence.gathering import fixed_lines, tests_break, tests_confirm
from acode.review.judging.behaviour_question import ask_about_differences, backed_or_medium, open_differences
from acode.review.judging.code_spec import function_spec
from acode.review.judging.intent_question import ask_intent
from acode.review.judging.proposals import PartialProposals, Proposals, line_choices, propose
from acode.review.judging.regression import CALIBRATION_CHARS, compare_regions, plan_regions
from acode.review.judging.regression import DIMENSION as REGRESSION_DIMENSION
from acode.review.judging.time_plan import diff_tokens_for, expected_answer_tokens, proposal_seconds
from acode.review.judging.verification import check_findings
from acode.review.running.review_run import ReviewRun

log = logging.getLogger("acode.review")


class FindingsReview:
    def assess(self, run: ReviewRun) -> None:
        settings, plan = run.settings, run.plan
        assessed = Assessed(enabled=settings.dimensions.enabled())
        plan.proposals = settings.strategy != "checks_only"  # a time-out must not name what was never planned
        step = _Step()
        try:
            with step("look around (judging/exploring.py)"):
                run.explore()
            # the question about each behavioural difference first: a likelihood guess is never high on its
            # own, so it is compared only where it can still decide (a difference the question left open)
            with step("behaviour question (judging/behaviour_question.py)"):
                _behaviour_stage(run)
            if REGRESSION_DIMENSION in assessed.enabled:
                with step("regression check (judging/regression.py)"):
                    _regression_stage(run, assessed)
                assessed.regression = [backed_or_medium(f, run.evidence.findings)
                                       for f in assessed.regression]
            if settings.strategy != "checks_only":
                with step("model proposals and their checks (judging/proposals.py, judging/verification.py)"):
                    _fit_to_time(run, assessed.enabled)
                    if plan.proposals:
                        self._propose_and_check(run, assessed)
        except ModelTimeoutError as exc:
            log.info("review ran out of time: %s", exc.message)
            run.result.status = "partial" if assessed.regression or assessed.finished(plan) else "timeout"
            note_unfinished(plan, assessed)
        except NoModelError:
            plan.skipped.append(f"{step.name} and the model steps after it: no model is configured "
                                "(model.backend: none), decided on the checks")
            run.result.status = "partial"
        except ModelError as exc:
            step.failed = exc
            plan.skipped.append(f"{step.name}: the model step failed ({exc.code}: {exc.message}); the "
                                "steps after it did not run")
            run.result.status = "partial"
        plan.note_rates(run.model.pace.prompt_rate(), run.model.pace.generate_rate())
        plan.regions_compared = len(assessed.regression)
        if run.result.status == "complete" and plan.skipped:
            # the plan left something out: decided on what was assessed, and says so
            run.result.status = "partial"
        # the team's dismissals (a finding of the model's steps too) before the levels
        assessed.regression = run.dismiss(assessed.regression)
        assessed.checked = {name: run.dismiss(found) for name, found in assessed.checked.items()}
        run.result.dimensions = fill_dimensions(assessed, status=run.result.status, plan=plan,
                                                settings=settings, evidence=run.evidence.findings)
        run.result.decision = decide_from_levels(run.result.dimensions, run.evidence.findings, settings)
        if step.failed is not None and run.result.decision.approved:
            # only a decision the checks made stands without the model; an approval needs the model's part
            raise step.failed
        run.result.decision = held_to_partial(run.result.decision, run.result.status, plan.skipped, settings)

    def _propose_and_check(self, run: ReviewRun, assessed: Assessed) -> None:
        settings = run.settings
        messages = run.messages(with_callers=True)
        try:
            assessed.proposals = self._propose(run, messages, assessed.enabled)
        except PartialProposals as partial:
            assessed.proposals = partial.proposals
            raise ModelTimeoutError("ACODE-REVIEW-030", "timed out while proposing findings") from None
        check_findings(
            run.model, messages, assessed.proposals.findings, run.shown_files(),
            confirm_at=settings.thresholds.confirm, count_context=settings.thresholds.count_context_lines,
            timeout=run.remaining, progress=run.say,
            on_checked=lambda f: assessed.checked.setdefault(f.dimension, []).append(f),
        )

    def _propose(self, run: ReviewRun, messages: list[Message], enabled: list[str]) -> Proposals:
        settings = run.settings
        proposals = propose(
            run.model, messages, enabled, strategy=settings.strategy,
            max_findings=settings.max_findings_per_dimension, max_tokens=settings.max_tokens_per_answer,
            min_findings=1 if settings.require_candidates else 0, choices=line_choices(run.shown_files()),
            stop_on_failure=settings.on_model_failure == "error", timeout=run.remaining,
            parallel=settings.parallel_requests, progress=run.say,
        )
        if proposals.failed and settings.on_model_failure == "error":
            name, why = next(iter(proposals.failed.items()))
            raise ModelOutputError("ACODE-REVIEW-020",
                                   f"the model's answer for {name} could not be read: {why}",
                                   hint="set reviewer.on_model_failure: reject, or use a larger model")
        return proposals


class _Step:
    """Which model step is running (``with step(name):``), for a failure to name."""

    def __init__(self) -> None:
        self.name = ""
        self.failed: ModelError | None = None

    @contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        self.name = name
        yield


def _behaviour_stage(run: ReviewRun) -> None:
    """The model's yes/no question about each behavioural difference no rule decided
    (docs/design/review-evidence.md), but for a function where a finding of the evidence already counts
    high."""
    behaviour = run.evidence.behaviour
    if behaviour is None or not any(ASK in f.metrics for f in run.evidence.findings):
        return
    try:
        _intent_stage(run)
        if not any(ASK in f.metrics for f in run.evidence.findings):
            return
        run.evidence.findings = ask_about_differences(
            run.model, run.evidence.findings, behaviour, run.context.effective_intent(),
            margin=run.settings.behaviour.question_margin, timeout=run.remaining, progress=run.say,
            standing=run.evidence.findings, instructions=run.settings.instructions,
            votes=run.settings.behaviour.judge_votes, vote_margin=run.settings.behaviour.judge_margin,
            vote_swap=run.settings.behaviour.judge_swap,
            spec_of=lambda result: _spec_of(run, result))
    finally:
        run.result.evidence = run.evidence.findings


def _spec_of(run: ReviewRun, result: FunctionResult) -> str:
    """What both versions of the file state of ``result``'s function (``judging.code_spec``)."""
    changed = next((f for f in run.context.files if f.path == result.function.path), None)
    if changed is None:
        return ""
    return function_spec(read_old_text(run.context, changed), read_new_text(run.context, changed.path),
                         result.function.qualname)


def _intent_stage(run: ReviewRun) -> None:
    """Does the request ask for a behaviour change? Asked only here, where a difference waits for the model
    (``judging.intent_question``); when the answer is that it asks for none, every difference counts high,
    the executed difference its evidence. The answer goes into the behavioural diff's record."""
    votes = run.settings.behaviour.intent_votes
    if not votes:
        return
    answer = ask_intent(run.model, run.context.effective_intent(), votes=votes,
                        margin=run.settings.behaviour.intent_margin, timeout=run.remaining, progress=run.say)
    if run.result.behaviour is not None:
        run.result.behaviour = {**run.result.behaviour, "intent": answer.record()}
    verdict = answer.as_verdict()
    if verdict is not None:
        run.evidence.findings = reweigh(run.evidence.findings, run.evidence.behaviour, verdict)


def _regression_stage(run: ReviewRun, assessed: Assessed) -> None:
    """Plan and compare the edits; lines the evidence shows fixed are measured, not judged."""
    settings, plan = run.settings, run.plan
    why_not = _executed_evidence_decides(run)
    if why_not:
        plan.regression_note = why_not
        run.say(f"regression check not run: {why_not}")
        return
    share = settings.budget.regression_share if settings.strategy != "checks_only" else 1.0
    left = run.plannable()
    seconds = None if left is None else max(0.0, left * share)
    # where nothing ran the code (the diff off or without a sandbox) the guess is all there is: every edit is
    # compared, each guess a reason to look
    ran = run.evidence.behaviour is not None
    within = (open_differences(run.evidence.findings) if ran and settings.regression.scope == "differences"
              else None)
    regions = plan_regions(run.context, run.model, settings.regression, seconds=seconds,
                           paths=lambda: {f.path for f in run.shown_files()},
                           settled=ran_the_same(run.evidence.behaviour), within=within)
    plan.regions_found, plan.regions_planned = regions.found, len(regions.regions)
    plan.regression_seconds_estimated = regions.estimated_seconds
    stage_end = None if left is None else time.monotonic() + seconds

    def seconds_left() -> float | None:
        return None if stage_end is None else stage_end - time.monotonic()

    try:
        compare_regions(run.context, run.model, settings.regression, regions, timeout=run.remaining,
                        progress=run.say, out=assessed.regression, seconds_left=seconds_left,
                        fixed=fixed_lines(run.evidence.findings), instructions=settings.instructions)
    finally:
        note = regions.note(settings.regression.max_edit_lines)
        if note:
            run.say(note)
        if regions.left_out.get("time"):
            plan.skipped.append(f"regression check: {regions.left_out['time']} edit(s) not compared "
                                f"(did not fit {seconds:.0f} s of the time plan)")


def _executed_evidence_decides(run: ReviewRun) -> str:
    """Why executed evidence outranks the likelihood guess for this change ('' when it does not): the
    change makes failing tests pass, it breaks tests that pass on the base, or (``when_tests_agree: skip``)
    the project's tests ran on both sides and give every test the same outcome, or ran out of time. Inside
    a project whose tests run, the model's likelihood was measured no better than chance, whether or not a
    test names the changed code (docs/design/review-evidence.md)."""
    if tests_confirm(run.evidence.findings):
        return "the project's tests confirm the change (they fail on the base and pass with it)"
    if tests_break(run.evidence.findings):  # the verdict is already made on a fact; a guess adds only time
        return "the project's tests already show the change breaks them (rejected on that)"
    tests = run.evidence.tests or {}
    if run.settings.regression.when_tests_agree != "skip":
        return ""
    if tests.get("agree"):
        passed = f" ({tests['passed_both']} pass on both)" if tests.get("passed_both") else ""
        which = ("the project's tests of the changed code" if tests.get("related") else
                 "the project's tests (none names the changed code)")
        what = f"{which} give every test the same result on both sides{passed}"
    elif tests.get("timed_out"):
        what = (f"the project's tests did not finish within {run.settings.test_timeout_seconds:.0f} s, so "
                "they compare nothing")
    else:
        return ""
    return (f"{what}; inside a tested project the model's likelihood was measured no better than chance "
            "(reviewer.regression.when_tests_agree)")


def _measure_speed(run: ReviewRun, seconds: float) -> None:
    """One short reading (a few dozen tokens) to measure a model nothing has been asked yet: the head of
    the system prompt, scored where the backend can, else a one-token answer."""
    scorer = scorer_of(run.model)
    if scorer is not None:
        run.model.record(scorer.score_text(run.system[:CALIBRATION_CHARS], "", timeout=seconds).usage)
    else:
        run.model.complete([Message.user("Reply with OK.")], max_tokens=1, temperature=0.0, timeout=seconds)


def _fit_to_time(run: ReviewRun, enabled: list[str]) -> None:
    """Cut the diffs to what the proposals and their checks can read in the time left; no proposals when
    too little fits."""
    settings, plan, pace = run.settings, run.plan, run.model.pace
    left = run.plannable()
    single = settings.strategy == "single_call"
    per_call = settings.max_findings_per_dimension
    shape = {"answer_tokens": expected_answer_tokens(per_call, settings.max_tokens_per_answer),
             "findings": per_call * (1 if single else len(enabled)), "calls": 1 if single else len(enabled)}
    if left is None:
        plan.diff_tokens = run.packed.summary.used_tokens
        return
    if not pace.measured and left > 1:
        _measure_speed(run, left)
        left = run.plannable()
    fits = diff_tokens_for(pace, left, run.overhead, **shape)
    if fits < min(settings.budget.min_diff_tokens, max(1, run.packed.summary.used_tokens)):
        plan.proposals = False
        plan.skipped.append(f"model proposals and their checks: about {left:.0f} s were left, too little to "
                            f"read {settings.budget.min_diff_tokens} tokens of diff at "
                            f"{pace.prompt_rate():.0f} tokens/s")
        return
    if fits < run.packed.summary.used_tokens:
        run.repack(fits, "did not fit the time plan")
        cut = [p for p, why in run.packed.summary.omitted.items() if why == "did not fit the time plan"]
        plan.skipped.append(f"diffs shown to the model cut to {fits} tokens to fit the time plan"
                            + (f"; not shown: {', '.join(cut)}" if cut else ""))
        if not run.packed.summary.included:
            plan.proposals = False
            plan.skipped.append("model proposals: no file's diff fitted the time plan")
    plan.diff_tokens = run.packed.summary.used_tokens
    plan.proposal_seconds_estimated = round(proposal_seconds(pace,
                                                             run.overhead + run.packed.summary.used_tokens,
                                                             **shape), 1)
