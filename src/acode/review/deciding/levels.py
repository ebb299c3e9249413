"""From findings to levels to a decision. Nothing here asks a model: the decision is derived from the
findings that survived their check and from the deterministic evidence, with thresholds from config."""

from __future__ import annotations

from acode.config.review import Level, ReviewerSettings, Thresholds
from acode.review.judging.regression import RULE as REGRESSION_RULE
from acode.review.models import LEVELS, Decision, DimensionResult, Finding, worse

_EVIDENCE_LEVEL: dict[str, Level] = {"critical": "poor", "high": "poor", "medium": "needs_work",
                                     "low": "acceptable", "info": "good"}


def finding_level(finding: Finding, thresholds: Thresholds) -> Level | None:
    """The level a single finding pulls its dimension down to, or None when it does not count."""
    if not finding.counts:
        return None
    if finding.source != "model":
        if finding.rule == "tests/not-touched":
            return thresholds.untested_change_level
        return _EVIDENCE_LEVEL[finding.severity]
    if finding.rule == REGRESSION_RULE:
        # its own threshold (reviewer.regression.margin) already decided that it counts; on its own a
        # likelihood guess is medium (a reason to look), high only where executed evidence backs it
        return "poor" if finding.severity in ("critical", "high") else "needs_work"
    if finding.confidence is None:
        return "needs_work"  # unchecked (an unreadable answer): never approved for want of a check
    if finding.confidence >= thresholds.poor and finding.severity != "low":
        return "poor"
    # A proposal its check did not firmly confirm is advice: shown, never a reason to reject. Measured on
    # real commits (1.5B): the checks gave real fixes and the same fixes reverted the same P(yes), 0.51-0.69
    # in both, and three such proposals made "more than 2 dimensions need work" reject real fixes.
    return "acceptable"


def cap_unconfirmed(finding: Finding, thresholds: Thresholds, evidence: list[Finding]) -> Finding:
    """A model's proposal is shown as high or critical only when its check firmly confirmed it (P(yes) at or
    above ``thresholds.poor``) or deterministic evidence points at the same line; otherwise at most medium.
    The level it gives is the same either way (``finding_level``): this is what the report shows."""
    if (finding.source != "model" or finding.rule == REGRESSION_RULE
            or finding.severity not in ("critical", "high")):
        return finding
    firm = finding.status == "confirmed" and (finding.confidence or 0.0) >= thresholds.poor
    backed = any(e.file == finding.file and e.line == finding.line and e.severity in ("critical", "high")
                 for e in evidence if e.file)
    if firm or backed:
        return finding
    return finding.model_copy(update={"severity": "medium"})


def dimension_level(findings: list[Finding], thresholds: Thresholds) -> Level:
    """Worst level among counting findings; excellent when nothing at all was raised."""
    if not findings:
        return "excellent"
    level: Level = "good"
    for finding in findings:
        pulled = finding_level(finding, thresholds)
        if pulled is not None:
            level = worse(level, pulled)
    return level


def explain(findings: list[Finding], *, status: str = "assessed", error: str = "") -> str:
    """A short note for the report: the most serious counting finding, or why there is none."""
    if status != "assessed":
        return error or "not assessed"
    counting = [f for f in findings if f.counts]
    if counting:
        top = min(counting, key=lambda f: (LEVELS.index(_severity_rank(f)) * -1, -(f.confidence or 0)))
        where = f" ({top.file}:{top.line})" if top.file and top.line else ""
        more = f"; {len(counting) - 1} more" if len(counting) > 1 else ""
        return f"{top.message}{where}{more}"
    raised = [f for f in findings if f.source == "model"]
    if raised:
        return f"no confirmed issue ({len(raised)} raised, none survived its check)"
    return "no issue found"


def _severity_rank(finding: Finding) -> Level:
    return _EVIDENCE_LEVEL.get(finding.severity, "good")


def secret_reasons(evidence: list[Finding]) -> list[str]:
    return [f"a secret is added at {f.file}:{f.line} ({f.rule})" for f in evidence
            if f.rule.startswith("secret/") and f.counts]


def decide_from_levels(dimensions: list[DimensionResult], evidence: list[Finding],
                       settings: ReviewerSettings) -> Decision:
    """Reject on a leaked secret, an unassessed dimension, any poor, more than ``max_needs_work``
    needs_work, or a dimension below ``min_quality``; approve otherwise."""
    reasons = secret_reasons(evidence)
    for dim in dimensions:
        if dim.level is None:
            reasons.append(f"{dim.name} could not be assessed ({dim.error or dim.status}); "
                           "an unreadable or missing answer never approves")
        elif dim.level == "poor":
            reasons.append(f"{dim.name} is poor: {dim.explanation}")
    needs_work = [d.name for d in dimensions if d.level == "needs_work"]
    if len(needs_work) > settings.thresholds.max_needs_work:
        reasons.append(f"{len(needs_work)} dimensions need work ({', '.join(needs_work)}); "
                       f"at most {settings.thresholds.max_needs_work} may")
    if settings.min_quality:
        floor = LEVELS.index(settings.min_quality)
        below = [d.name for d in dimensions if d.level is not None and LEVELS.index(d.level) > floor]
        if below:
            reasons.append(f"below the required {settings.min_quality}: {', '.join(below)}")
    if reasons:
        return Decision(verdict="REJECTED", strategy="findings", reasons=reasons)
    confirmed = sum(1 for d in dimensions for f in d.findings if f.counts)
    return Decision(verdict="APPROVED", strategy="findings", reasons=[
        f"no dimension is poor, {len(needs_work)} need work "
        f"(at most {settings.thresholds.max_needs_work} may)"
        + (f", minimum {settings.min_quality} met" if settings.min_quality else "")
        + f"; {confirmed} confirmed finding(s)"
    ])


def held_to_partial(decision: Decision, status: str, skipped: list[str], settings: ReviewerSettings
                    ) -> Decision:
    """``decision``, but a partial review's approval is a rejection when ``reviewer.budget.on_partial`` is
    reject (``skipped``: what the plan left out, named in the reason)."""
    if status == "partial" and settings.budget.on_partial == "reject" and decision.approved:
        return Decision(verdict="REJECTED", strategy="findings", reasons=[
            "the review is partial (" + "; ".join(skipped) + ") and reviewer.budget.on_partial is reject"])
    return decision


def decide_from_verdict(verdict_text: str | None, reason: str, evidence: list[Finding]) -> Decision:
    """The naive baseline: the model's overall verdict; unreadable -> REJECTED. A secret still rejects."""
    secrets = secret_reasons(evidence)
    if verdict_text not in ("APPROVED", "REJECTED"):
        return Decision(verdict="REJECTED", strategy="verdict",
                        reasons=[f"the model's verdict could not be read ({reason}); it never approves"]
                        + secrets)
    if secrets:
        return Decision(verdict="REJECTED", strategy="verdict", reasons=secrets + [f"model: {reason}"])
    return Decision(verdict=verdict_text, strategy="verdict", reasons=[f"model: {reason}"])  # type: ignore[arg-type]
