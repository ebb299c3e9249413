"""The fixer's token budget (agent.fix.token_budget): after the first call, the one call anyone would make,
another call is made only while all the calls so far generated less than the budget times the first call's
completion tokens. With the scripted model and the real tools on a real pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply, session
from tests.helpers.fixing_replies import PLACEHOLDER_REPLY, diff, echo

from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion

# eight different wrong one-line edits: each is written and tested, none passes
WRONG = [diff("    return a - b", f"    return a * b + {n}") for n in range(8)]


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo


def generated(result) -> list[int]:
    return [step.usage.completion_tokens for step in result.model_steps()]


def test_the_calls_stop_once_they_have_generated_the_budget_times_the_first_calls_tokens(project):
    model = ScriptedModel([echo(), *WRONG, reply(FIXED)])
    s = session(project, model, line_edit_calls=8, token_budget=2)
    result = s.send(REQUEST)
    s.close()
    tokens = generated(result)
    # every call but the last began under the budget; the last one reached it
    assert sum(tokens[:-1]) < 2 * tokens[0] <= sum(tokens)
    assert 2 < len(model.calls) < 9  # fewer than the eight line asks: the whole-file framing never came
    assert all(c["messages"][0].role != "system" for c in model.calls)
    assert not result.ok and result.stop_reason == "tests_failing"
    assert "agent.fix.token_budget (2 times the first call's" in result.message
    assert (project / "calc.py").read_text() == BUGGY


@pytest.mark.slow
def test_a_larger_budget_buys_more_calls_and_none_is_no_limit(project):
    counts = []
    for budget in (2, 4, 0):
        (project / "calc.py").write_text(BUGGY)
        model = ScriptedModel([echo(), *WRONG, reply(FIXED)])
        s = session(project, model, line_edit_calls=8, token_budget=budget, max_model_calls=2)
        result = s.send(REQUEST)
        s.close()
        counts.append(len(model.calls))
    assert counts[0] < counts[1] < counts[2]
    assert counts[2] == 10 and result.ok  # no budget: the eight asks, then the framing that fixes it
    assert (project / "calc.py").read_text() == FIXED


def test_a_line_ask_that_copies_the_instruction_leaves_the_budget_to_a_whole_file_call(project):
    # the 0.5B's way: its line asks end at once, and its whole-file samples are its chance
    model = ScriptedModel([echo(), PLACEHOLDER_REPLY, reply(FIXED)])
    s = session(project, model, line_edit_calls=8, token_budget=2)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED
    assert len(model.calls) == 3 and model.calls[2]["messages"][0].role == "system"


def test_a_server_that_reports_no_usage_is_counted_by_its_text(project):
    silent = [Completion(text=text) for text in (echo(), *WRONG)]  # completion_tokens 0 on every call
    model = ScriptedModel([*silent, reply(FIXED)])
    s = session(project, model, line_edit_calls=8, token_budget=2)
    result = s.send(REQUEST)
    s.close()
    assert not result.ok and 2 < len(model.calls) < 9 and "token_budget" in result.message
