"""How a review reaches its decision, one object per strategy (``service.strategy_for`` picks one):

- ``FindingsReview`` (``findings_strategy``, the default): regression check, proposals, checks, levels;
- ``VerdictReview``: the model's overall APPROVED/REJECTED answer, the naive baseline the benchmarks
  compare against (``reviewer.decision_strategy: verdict``).
"""

from __future__ import annotations

from typing import Protocol

from acode.errors import ModelTimeoutError
from acode.review.deciding.levels import decide_from_verdict
from acode.review.judging.proposals import ask_verdict
from acode.review.running.review_run import ReviewRun


class ReviewStrategy(Protocol):
    def assess(self, run: ReviewRun) -> None:
        """Fill ``run.result`` (decision, dimensions, status) from the model and the evidence."""


class VerdictReview:
    def assess(self, run: ReviewRun) -> None:
        evidence = run.evidence.findings
        try:
            run.explore()
            run.say("asking for an overall verdict")
            answer = ask_verdict(run.model, run.messages(), timeout=run.remaining(),
                                 max_tokens=run.settings.max_tokens_per_answer)
        except ModelTimeoutError as exc:
            run.result.status = "timeout"
            run.result.decision = decide_from_verdict(None, exc.message, evidence)
            return
        run.result.decision = (decide_from_verdict(None, answer, evidence) if isinstance(answer, str) else
                               decide_from_verdict(answer.verdict, answer.reason, evidence))
