"""The one model step of a description: a short summary of the change, asked as JSON whose one field is
bounded in its schema (a grammar-constrained answer stays short; an unconstrained backend's longer answer is
cut to the bound). The prompt is ``prompts/describe_summary.j2``: the intent, the facts and the diffs cut
to a small budget."""

from __future__ import annotations

import time

from pydantic import BaseModel

from acode.llm.bounded_fields import bounded_text
from acode.llm.protocol import ChatModel
from acode.llm.structured import complete_json
from acode.llm.types import Message
from acode.prompts import render
from acode.review.change.packing import pack_diffs
from acode.review.describing.facts import ChangeFacts
from acode.review.judging.metered import MeteredModel
from acode.review.judging.proposals import PKG
from acode.review.models import ReviewContext
from acode.review.running.review_run import redacted_files
from acode.secrets import redact

SUMMARY_CHARS = 300  # the summary's bound, in its JSON schema
DIFF_TOKENS = 1500  # of diffs in the prompt at most: a summary needs the gist, not every line
ANSWER_TOKENS = 120  # room for SUMMARY_CHARS in JSON


class SummaryAnswer(BaseModel):
    summary: bounded_text(SUMMARY_CHARS)


class Summary(BaseModel):
    text: str
    model: str  # the model that wrote it
    seconds: float
    generated_tokens: int = 0


def summarise(model: ChatModel, context: ReviewContext, facts: ChangeFacts, *, timeout: float) -> Summary:
    """The model's summary of the change; raises ModelError (and its kinds) when the model cannot give one."""
    started = time.monotonic()
    budget = min(DIFF_TOKENS, max(200, model.context_window // 4))
    diffs = pack_diffs(redacted_files(context), model.count_tokens, budget).text or "(no diff could be shown)"
    behaviour = [d.model_copy(update={key: redact(getattr(d, key)) for key in ("call", "before", "after")})
                 for d in facts.behaviour]
    prompt = render(PKG, "describe_summary.j2", intent=redact(facts.intent)[:800], files=facts.files,
                    behaviour=behaviour, diffs=diffs, limit=SUMMARY_CHARS)
    metered = MeteredModel(model)  # the tokens it generated, for the record
    answer = complete_json(metered, [Message.system(render(PKG, "system.j2")), Message.user(prompt)],
                           SummaryAnswer, max_tokens=ANSWER_TOKENS, timeout=timeout)
    return Summary(text=whole_sentences(answer.summary), model=model.name,
                   seconds=round(time.monotonic() - started, 1), generated_tokens=metered.stats.generated)


def whole_sentences(text: str) -> str:
    """``text`` on one line, without a last sentence the bound cut off (the 1.5B fills the 300 characters
    and stops mid-sentence); as it is when no sentence ends before that."""
    flat = " ".join(text.split())
    if flat.endswith((".", "!", "?")):
        return flat
    end = max(flat.rfind(". "), flat.rfind("! "), flat.rfind("? "))
    return flat[:end + 1] if end > 0 else flat
