"""Many cheap votes on which outcome of a behavioural difference is right (issue 49, ``behaviour.judge_votes``):
the difference put to the model several ways — the yes/no question per outcome, and both outcomes side by
side in both orders — with the specification the code states beside it; only answers that agree however it
was asked decide. Through the CLI on a scripted model."""

from __future__ import annotations

import math

from tests.helpers.review_fakes import yes_no
from tests.unit.review.evidence.behaviour.test_review_behaviour_evidence import (
    behaviour_finding,
    differences,
    needs_sandbox,
    review,
    run_pasted,
)

from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion, TokenLogprob
from acode.review.judging.behaviour_votes import ask_votes
from acode.review.judging.code_spec import function_spec

CLAMP = '''def clamp(value: int, low: int, high: int) -> int:
    """``value`` limited to the range from ``low`` to ``high``, both ends included."""
    assert low <= high
    return max(low, min(value, high))
'''
# the upper end is no longer in the range
OPEN_TOP = CLAMP.replace("min(value, high)", "min(value, high - 1)")
ASKS_CHANGE = ["Yes", "Yes", "No", "No"]  # the intent question's four answers: a change is asked for
VOTES = {"judge_votes": 2}


@needs_sandbox
def test_an_answer_that_flips_when_the_outcomes_swap_places_decides_nothing(tmp_path):
    # the yes/no pair prefers the old outcome; "A or B?" answers A whichever outcome is A: a position bias
    data = review(tmp_path, {"clamp.py": CLAMP}, {"clamp.py": OPEN_TOP}, "Update clamp.py",
                  answers=[*ASKS_CHANGE, "Yes", "No", "A", "A"], behaviour={"judge_votes": 1})
    assert differences(data)["clamp"]["status"] == "differs"
    finding = behaviour_finding(data, "clamp")
    # before (one yes/no pair decides): high, "the model finds the old outcome right", and the review rejected
    assert finding["severity"] == "medium" and finding["status"] == "confirmed", finding
    assert "no decision" in finding["message"] and "the answers disagree" in finding["message"]
    votes = {k: v for k, v in finding["metrics"].items() if k.startswith("vote_")}
    assert votes["vote_yes_no"] < 0 and votes["vote_ab1_old_first"] < 0 < votes["vote_ab1_new_first"]
    assert data["approved"] is True


@needs_sandbox
def test_votes_that_agree_the_new_outcome_breaks_the_documented_behaviour_reject_with_a_test_to_paste(tmp_path):
    data = review(tmp_path, {"clamp.py": CLAMP}, {"clamp.py": OPEN_TOP}, "Update clamp.py",
                  answers=[*ASKS_CHANGE, "Yes", "No", "A", "B", "A", "B"], behaviour=VOTES)
    difference = differences(data)["clamp"]["difference"]
    finding = behaviour_finding(data, "clamp")
    assert finding["severity"] == "high" and "every way it was asked 5 ways" in finding["message"], finding
    assert data["approved"] is False
    # the input and both outcomes are in the finding, and the test to paste fails on the new code only
    value_old, value_new = difference["old"].removeprefix("returns "), difference["new"].removeprefix("returns ")
    assert difference["input"] in finding["message"] and value_old != value_new
    assert f"before the change it returns {value_old}, now it returns {value_new}" in finding["message"]
    assert run_pasted(tmp_path, finding["test"], "clamp", CLAMP).returncode == 0
    assert run_pasted(tmp_path, finding["test"], "clamp", OPEN_TOP).returncode == 1


@needs_sandbox
def test_a_behaviour_change_the_message_asks_for_is_not_rejected(tmp_path):
    data = review(tmp_path, {"clamp.py": CLAMP}, {"clamp.py": OPEN_TOP}, "Leave the upper end out of clamp's range",
                  answers=[*ASKS_CHANGE, "No", "Yes", "B", "A", "B", "A"], behaviour=VOTES)
    finding = behaviour_finding(data, "clamp")
    assert finding["status"] == "dismissed" and "finds the new outcome right" in finding["message"], finding
    assert data["approved"] is True


def letters(p_a: float) -> Completion:
    top = {"A": math.log(p_a), "B": math.log(1 - p_a)}
    token = "A" if p_a >= 0.5 else "B"
    return Completion(text=token, logprobs=[TokenLogprob(token=token, logprob=top[token], top=top)])


HEADER = {"function": "clamp", "path": "clamp.py", "intent": "Update clamp.py", "instructions": [],
          "docstring": "``value`` limited to the range from ``low`` to ``high``, both ends included.",
          "spec": function_spec(CLAMP, OPEN_TOP, "clamp")}


def test_a_leaning_to_the_first_option_cancels_and_every_question_shares_the_prompts_beginning():
    # the model prefers A at 0.8 whichever outcome is A, and the yes/no pair leans a little to the old one
    model = ScriptedModel([yes_no(0.6), yes_no(0.4), letters(0.8), letters(0.8), letters(0.8), letters(0.8)])
    votes = ask_votes(model, header=HEADER, call="clamp(1, 0, 1)", old="returns 1", new="returns 0", wordings=2,
                      timeout=lambda: 10.0)
    assert votes.votes["ab1_old_first"] == -votes.votes["ab1_new_first"]  # the bias, once each way
    assert votes.mean is not None and votes.verdict(0.0) is None and votes.verdict(0.5) is None
    questions = [call["messages"][-1].content for call in model.calls]
    shared = questions[0].split("Called as")[0]
    assert all(q.startswith(shared) for q in questions)  # the KV cache reuses all of it
    assert "def clamp(value: int, low: int, high: int) -> int: ...\n    assert low <= high" in shared
    assert "both ends included" in shared
    assert "A: it returns 1\nB: it returns 0" in questions[2] and "A: it returns 0\nB: it returns 1" in questions[3]


def test_the_specification_is_only_what_both_versions_state():
    changed = CLAMP.replace("    assert low <= high\n", "    assert value is not None\n")
    assert function_spec(CLAMP, changed, "clamp") == "def clamp(value: int, low: int, high: int) -> int: ..."
    method = "class Box:\n    def put(self, item: str) -> None:\n        assert item\n"
    assert function_spec(method, method, "Box.put") == "def put(self, item: str) -> None: ...\n    assert item"
    assert function_spec(method, "class Box: pass\n", "Box.put") == ""
    assert function_spec("def broken(:\n", method, "Box.put") == ""


def test_with_the_swap_cancelled_a_position_bias_averages_out_and_the_signal_under_it_decides():
    # A is preferred at 0.8 when A is the old outcome, at only 0.7 when A is the new one: a bias to A, and
    # under it a lean to the old outcome, as is the yes/no pair's
    answers = [yes_no(0.6), yes_no(0.4), letters(0.8), letters(0.7), letters(0.8), letters(0.7)]
    asked = {swap: ask_votes(ScriptedModel(list(answers)), header=HEADER, call="clamp(1, 0, 1)", old="returns 1",
                             new="returns 0", wordings=2, timeout=lambda: 10.0, swap=swap)
             for swap in ("consistent", "cancelled")}
    assert asked["consistent"].verdict(0.3) is None  # each order alone: A both times, a flip
    assert "the answers disagree" in asked["consistent"].undecided(0.3)
    cancelled = asked["cancelled"]
    assert [round(v, 2) for v in cancelled.counted] == [-0.81, -0.27, -0.27]
    assert cancelled.verdict(0.3) == "old" and cancelled.verdict(0.5) is None
    assert abs(cancelled.position_bias - (math.log(0.7 / 0.3) + math.log(0.8 / 0.2)) / 2) < 0.002
