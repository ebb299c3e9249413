"""From what a review assessed (regression findings, proposals and their checks, evidence) to one result
per enabled dimension, saying which dimensions the model did not finish in time."""

from __future__ import annotations

from dataclasses import dataclass, field

from acode.config.review import ReviewerSettings
from acode.review.deciding.levels import cap_unconfirmed, dimension_level, explain
from acode.review.judging.proposals import Proposals
from acode.review.judging.regression import DIMENSION as REGRESSION_DIMENSION
from acode.review.models import DimensionResult, Finding, ReviewPlan


@dataclass
class Assessed:
    enabled: list[str]
    regression: list[Finding] = field(default_factory=list)
    proposals: Proposals | None = None
    checked: dict[str, list[Finding]] = field(default_factory=dict)

    def finished(self, plan: ReviewPlan) -> list[str]:
        """Dimensions whose proposals were read and all checked (none when proposals were not planned)."""
        if not plan.proposals or self.proposals is None:
            return []
        found = self.proposals.findings
        return [d for d in self.enabled if d in found and len(self.checked.get(d, [])) >= len(found[d])]


def note_unfinished(plan: ReviewPlan, assessed: Assessed) -> None:
    """Name in the plan what the time limit left unread or unchecked."""
    if not plan.proposals:
        return
    proposals = assessed.proposals
    if proposals is None:
        plan.skipped.append("model proposals: the time limit passed before they were read")
        return
    unread = [d for d, why in proposals.failed.items() if why == "timed out"]
    if unread:
        plan.skipped.append(f"model proposals for {', '.join(unread)}: not read before the time limit")
    total = sum(len(items) for items in proposals.findings.values())
    done = sum(len(items) for items in assessed.checked.values())
    if done < total:
        plan.skipped.append(f"{total - done} of {total} proposed finding(s) not checked before the time "
                            "limit (left out, not counted)")


def fill_dimensions(assessed: Assessed, *, status: str, plan: ReviewPlan, settings: ReviewerSettings,
                    evidence: list[Finding]) -> list[DimensionResult]:
    """A result for every enabled dimension from what was assessed: its checked findings, the regression
    findings (intent alignment) and its deterministic evidence. A dimension whose proposal could not be read
    is not assessed (which rejects); proposals that were skipped or not checked in time are left out and
    named in the plan. After a time-out with nothing assessed (``status``), every dimension says so."""
    if status == "timeout":
        why = "not assessed before the timeout"
        return [DimensionResult(name=name, status="timeout", error=why, explanation=why)
                for name in assessed.enabled]
    unfinished = _unfinished(plan, settings, assessed)
    proposals = assessed.proposals
    failed = {d: why for d, why in (proposals.failed if proposals else {}).items() if why != "timed out"}
    out = []
    for name in assessed.enabled:
        if name in failed:
            error = f"the model's answer was unusable: {failed[name]}"
            out.append(DimensionResult(name=name, status="failed", error=error, explanation=error[:200]))
            continue
        found = [cap_unconfirmed(f, settings.thresholds, evidence) for f in assessed.checked.get(name, [])]
        found += assessed.regression if name == REGRESSION_DIMENSION else []
        combined = found + [f for f in evidence if f.dimension == name]
        note = explain(combined)
        if name in unfinished:
            note = f"{_why_unfinished(plan, name)}; {note}"
        out.append(DimensionResult(name=name, level=dimension_level(combined, settings.thresholds),
                                   findings=found, explanation=note,
                                   status="partial" if name in unfinished else "assessed"))
    return out


def _why_unfinished(plan: ReviewPlan, dimension: str) -> str:
    if dimension == REGRESSION_DIMENSION and _regression_short(plan):
        return "the regression check did not compare every edit in the time there was"
    if not plan.proposals:
        return "the time plan left the model's proposals out (see the plan)"
    return "the model's part was not finished before the time limit"


def _regression_short(plan: ReviewPlan) -> bool:
    return plan.regions_compared < plan.regions_planned or any("regression check" in s for s in plan.skipped)


def _unfinished(plan: ReviewPlan, settings: ReviewerSettings, assessed: Assessed) -> list[str]:
    """Dimensions the model did not finish: all of them when proposals were planned but skipped or cut
    short, the intent alignment when the regression check left edits out."""
    out = []
    if settings.strategy != "checks_only":
        finished = assessed.finished(plan)
        out = [d for d in assessed.enabled if d not in finished]
    if _regression_short(plan):
        out.append(REGRESSION_DIMENSION)
    return [d for d in assessed.enabled if d in out]
