"""The review service: evidence -> packed context -> (look around) -> a strategy's assessment -> decision.
No CLI here; `acode review` and the Reviewer stage of `acode run` both call ``review_change``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from acode.config.review import ReviewerSettings
from acode.llm.protocol import ChatModel
from acode.review.deciding.findings_strategy import FindingsReview
from acode.review.deciding.verdict_strategy import ReviewStrategy, VerdictReview
from acode.review.evidence.test_runs import SuiteContrast
from acode.review.judging.run import Progress, ReviewRun
from acode.review.models import ReviewResult
from acode.tools.base import ToolRegistry


def strategy_for(settings: ReviewerSettings) -> ReviewStrategy:
    return VerdictReview() if settings.decision_strategy == "verdict" else FindingsReview()


def review_change(
    context,
    model: ChatModel,
    settings: ReviewerSettings,
    tools: ToolRegistry | None = None,
    *,
    run_tests: bool | Literal["auto"] = False,
    behaviour: bool = False,
    progress: Progress | None = None,
    strategy: ReviewStrategy | None = None,
    tests_ran: Sequence[SuiteContrast] = (),
) -> ReviewResult:
    """Review one change within ``settings.timeout_seconds`` (the plan: acode.review.judging.time_plan).
    Raises ModelOutputError only with ``on_model_failure: error``. When the limit passes mid-plan, the
    result keeps what was assessed (``status="partial"``); ``status="timeout"`` only when the model assessed
    nothing at all. ``strategy``: how to decide (default: the one ``settings`` names). ``tests_ran``: test
    runs on both sides of the change the caller made already (`acode run`'s failed checks), evidence too.
    ``behaviour``: run the behavioural diff (when ``settings.behaviour`` enables it; it runs the change's
    code, so callers opt in, as for the tests)."""
    run = ReviewRun.start(context, model, settings, run_tests=run_tests, behaviour=behaviour,
                          progress=progress, tools=tools, tests_ran=tests_ran)
    (strategy or strategy_for(settings)).assess(run)
    return run.finish()
