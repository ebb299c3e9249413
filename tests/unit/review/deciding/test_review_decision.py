"""The decision is derived from findings and thresholds, never from the model's overall impression."""

from __future__ import annotations

from acode.config.review import ReviewerSettings, Thresholds
from acode.review.deciding.levels import (
    decide_from_levels,
    decide_from_verdict,
    dimension_level,
    finding_level,
)
from acode.review.models import DimensionResult, Finding


def model_finding(confidence: float | None, severity: str = "high", status: str = "confirmed") -> Finding:
    return Finding(dimension="code_quality", source="model", rule="review/code_quality", severity=severity,
                   message="off by one", file="a.py", line=3, confidence=confidence, status=status)


def evidence(rule: str, severity: str, dimension: str = "safety") -> Finding:
    return Finding(dimension=dimension, source="risky-call", rule=rule, severity=severity, message=rule,
                   file="a.py", line=1, confidence=1.0)


def dims(*levels) -> list[DimensionResult]:
    names = ["intent_alignment", "code_quality", "completeness", "consistency", "safety"]
    return [DimensionResult(name=n, level=lv) for n, lv in zip(names, levels)]


def test_finding_levels_follow_confidence_thresholds_and_severity():
    t = Thresholds(confirm=0.5, poor=0.8)
    assert finding_level(model_finding(0.9), t) == "poor"
    # below `poor` a model's proposal is advice: shown, never a reason to reject (its check cannot tell)
    assert finding_level(model_finding(0.6), t) == "acceptable"
    assert finding_level(model_finding(0.95, "low"), t) == "acceptable"
    assert finding_level(model_finding(0.3, status="dismissed"), t) is None
    assert finding_level(model_finding(0.9, status="ungrounded"), t) is None
    # an unreadable check answer counts (conservatively) but cannot claim certainty
    assert finding_level(model_finding(None, status="unchecked"), t) == "needs_work"
    assert finding_level(evidence("risky/sql-string", "high"), t) == "poor"
    assert finding_level(evidence("risky/tls-verify-off", "medium"), t) == "needs_work"
    untested = Finding(dimension="completeness", source="tests", rule="tests/not-touched", severity="low", message="x")
    assert finding_level(untested, Thresholds(untested_change_level="needs_work")) == "needs_work"


def test_dimension_level_is_the_worst_counting_finding():
    t = Thresholds()
    assert dimension_level([], t) == "excellent"
    assert dimension_level([model_finding(0.1, status="dismissed")], t) == "good"
    assert dimension_level([model_finding(0.6), model_finding(0.99, "low")], t) == "acceptable"
    assert dimension_level([model_finding(0.6), model_finding(0.95)], t) == "poor"


def test_thresholds_are_config():
    finding = model_finding(0.7)
    assert dimension_level([finding], Thresholds(poor=0.8)) == "acceptable"
    assert dimension_level([finding], Thresholds(poor=0.65)) == "poor"


def test_any_poor_rejects():
    decision = decide_from_levels(dims("good", "poor", "good", "good", "good"), [], ReviewerSettings())
    assert decision.verdict == "REJECTED" and "code_quality is poor" in decision.reasons[0]


def test_more_than_two_needs_work_rejects_but_two_do_not():
    settings = ReviewerSettings()
    two = decide_from_levels(dims("needs_work", "needs_work", "good", "good", "good"), [], settings)
    three = decide_from_levels(dims("needs_work", "needs_work", "needs_work", "good", "good"), [], settings)
    assert two.verdict == "APPROVED" and three.verdict == "REJECTED"
    assert "3 dimensions need work" in three.reasons[0]
    stricter = ReviewerSettings(thresholds=Thresholds(max_needs_work=1))
    assert decide_from_levels(dims("needs_work", "needs_work", "good", "good", "good"), [], stricter).verdict == "REJECTED"


def test_min_quality_makes_every_dimension_meet_the_level():
    levels = dims("good", "acceptable", "excellent", "good", "good")
    assert decide_from_levels(levels, [], ReviewerSettings(min_quality="acceptable")).verdict == "APPROVED"
    decision = decide_from_levels(levels, [], ReviewerSettings(min_quality="good"))
    assert decision.verdict == "REJECTED" and "code_quality" in decision.reasons[0]


def test_a_leaked_secret_always_rejects():
    secret = Finding(dimension="safety", source="secrets", rule="secret/aws-access-key", severity="critical",
                     message="a secret", file="cfg.py", line=2, confidence=1.0)
    decision = decide_from_levels(dims(*["excellent"] * 5), [secret], ReviewerSettings())
    assert decision.verdict == "REJECTED" and "cfg.py:2" in decision.reasons[0]
    # even when the safety dimension is turned off, and even for the verdict baseline
    assert decide_from_levels(dims(*["excellent"] * 4), [secret], ReviewerSettings()).verdict == "REJECTED"
    assert decide_from_verdict("APPROVED", "looks fine", [secret]).verdict == "REJECTED"


def test_an_unassessed_dimension_never_approves():
    levels = dims("excellent", "excellent", "excellent", "excellent", "excellent")
    levels[2] = DimensionResult(name="completeness", level=None, status="failed", error="unreadable answer")
    decision = decide_from_levels(levels, [], ReviewerSettings())
    assert decision.verdict == "REJECTED" and "completeness could not be assessed" in decision.reasons[0]


def test_verdict_baseline_unreadable_answer_rejects():
    assert decide_from_verdict(None, "no JSON", []).verdict == "REJECTED"
    assert decide_from_verdict("APPROVED", "fine", []).verdict == "APPROVED"
    assert decide_from_verdict("REJECTED", "bad", []).strategy == "verdict"
