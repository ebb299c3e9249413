"""The votes on which outcome of a behavioural difference is right, on the real 0.5B: the yes/no pair and
"A or B?" in both orders, every answer read from the answer token's log-probabilities
(tests/unit/review/test_review_behaviour_votes.py: what the votes do to a review)."""

from __future__ import annotations

import pytest

from acode.review.judging.behaviour_votes import ask_votes
from acode.review.judging.code_spec import function_spec

CLAMP = '''def clamp(value: int, low: int, high: int) -> int:
    """``value`` limited to the range from ``low`` to ``high``, both ends included."""
    assert low <= high
    return max(low, min(value, high))
'''


@pytest.mark.real_model
def test_the_real_model_answers_every_vote_and_a_flip_or_a_small_lean_decides_nothing(real_model):
    header = {"function": "clamp", "path": "clamp.py", "intent": "Update clamp.py", "instructions": [],
              "docstring": "``value`` limited to the range from ``low`` to ``high``, both ends included.",
              "spec": function_spec(CLAMP, CLAMP.replace("high)", "high - 1)"), "clamp")}
    votes = ask_votes(real_model, header=header, call="clamp(1, 0, 1)", old="returns 1", new="returns 0",
                      wordings=2, timeout=lambda: 300.0)
    assert set(votes.votes) == {"yes_no", "ab1_old_first", "ab1_new_first", "ab2_old_first", "ab2_new_first"}
    assert all(isinstance(value, float) for value in votes.votes.values()), votes.votes
    verdict = votes.verdict(0.5)
    leans = {value > 0 for value in votes.votes.values()}
    # a decision only when every vote leans its way, past the margin
    assert verdict is None or (leans == {verdict == "new"} and abs(votes.mean) > 0.5), votes.votes
