"""A description of one change: its facts from a review made without a model (checks only; a complete
stored one of the same change and settings is reused, as `acode review` with model.backend none stores it;
its own is not stored, so `acode review show` keeps showing the last review), then the model's summary, or
the one line saying why there is none. A description never fails for the model."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from acode.config.model import ModelSettings
from acode.config.review import ReviewerSettings
from acode.errors import ConfigError, ModelError
from acode.llm.no_model import NoModel, NoModelError
from acode.llm.protocol import ChatModel
from acode.review.change.surroundings import surroundings_of
from acode.review.describing.facts import ChangeFacts, gather_facts
from acode.review.describing.summary import Summary, summarise
from acode.review.evidence.dismissed import Dismissal
from acode.review.models import ReviewContext
from acode.review.reporting.report import review_title
from acode.review.service import ReviewService, with_suggestions


class Description(BaseModel):
    facts: ChangeFacts
    summary: Summary | None = None
    summary_note: str = ""  # why there is no summary ('' when there is one)
    review_id: int | None = None  # the stored checks-only review the facts come from, when one was reused


def describe_change(context: ReviewContext, reviewer: ReviewerSettings, model: ModelSettings, *,
                    summary_model: Callable[[], ChatModel], run_tests: bool | Literal["auto"],
                    db_path: Path | None, dismissed: tuple[Dismissal, ...] | list[Dismissal] = (),
                    fresh: bool = False, progress: Callable[[str], None] = lambda _: None) -> Description:
    """``summary_model``: builds the model for the summary, called only once the facts are in (a failure to
    build it leaves the summary out, as a failure to answer does)."""
    checks = with_suggestions(reviewer, False)
    service = ReviewService(checks, model.model_copy(update={"backend": "none"}), run_tests=run_tests,
                            db_path=db_path, source="describe", dismissed=dismissed)
    stored = None if fresh else service.reusable(context)
    if stored is not None:
        result, review_id = stored.result, stored.id
    else:
        result = service.review(context, NoModel(model.context_window), behaviour=True, progress=progress)
        review_id = None
    facts = gather_facts(context, result, surroundings_of(context), review_title(result))
    description = Description(facts=facts, review_id=review_id)
    progress("asking the model for a short summary")
    try:
        summary = summarise(summary_model(), context, facts, timeout=reviewer.timeout_seconds)
    except NoModelError:
        description.summary_note = "summary left out: no model is configured (model.backend: none)"
        return description
    except (ModelError, ConfigError) as exc:
        description.summary_note = f"summary left out: the model step failed ({exc.code}: {exc.message})"
        return description
    if not summary.text:
        description.summary_note = f"summary left out: the model ({summary.model}) gave an empty one"
        return description
    description.summary = summary
    return description
