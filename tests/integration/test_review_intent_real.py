"""The intent question on the real 0.5B: asked both ways in two wordings, each answer read from the answer
token's log-probabilities (tests/unit/review/judging/test_review_intent.py: what a verdict does to a review)."""

from __future__ import annotations

import pytest

from acode.review.judging.intent_question import ask_intent


@pytest.mark.real_model
def test_the_real_model_answers_both_framings_and_every_answer_is_read(real_model):
    asked = []
    answers = {message: ask_intent(real_model, message, votes=2, margin=0.5, timeout=lambda: 300.0,
                                   progress=asked.append)
               for message in ("Move the parsing into a helper", "Return 404 instead of 500 for a missing user")}
    for answer in answers.values():
        assert answer.votes == 2 and answer.verdict in ("no_change", "change", "uncertain")
        assert set(answer.log_odds) == {"asks_change", "keeps_behaviour"}
        assert all(isinstance(value, float) for value in answer.log_odds.values()), answer.log_odds
        assert "both framings, 2 vote(s) each" in answer.note()
    assert len(asked) == 2
    # nothing to ask without a request: no call, and the note says so
    none = ask_intent(real_model, "  ", votes=2, margin=0.5, timeout=lambda: 300.0)
    assert none.verdict == "none" and "no request stated" in none.note()
