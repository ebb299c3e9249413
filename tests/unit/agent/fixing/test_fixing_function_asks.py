"""The function-level candidates after the one call (agent.fix.function_asks): the one call always
first, then the same prompt asking for only the function the failing test reaches, replies merged back
by name; the file unchanged and repeated candidates dropped before any test runs; the asks made only
while the clock stays within function_time_budget times the first call's seconds. With the scripted
model (its first call made slow on purpose: the budget's unit) and the real tools on a pytest project."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply, session

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.function_asks import FUNCTION_STOP, reached_functions
from acode.llm.scripted import ScriptedModel

ADD_BUGGY = "def add(a, b):\n    return a - b\n"
ADD_WRONG = "def add(a, b):\n    return a * b\n"
ADD_FIXED = "def add(a, b):\n    return a + b\n"
FIRST_SECONDS = 1.5  # the first call's seconds: the time budget's unit


def function(text: str) -> str:
    return f"```python\n{text}```\n"


def timed(steps: list, seconds: list[float]) -> list:
    """Each call of the script taking its seconds (the first: the one call)."""
    return [{"sleep": s, "text": t} for t, s in zip(steps, seconds, strict=True)]


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo


def test_the_function_the_failing_test_reaches_comes_first():
    calc = FileView("calc.py", BUGGY)
    swapped = TESTS.replace("from calc import add, double", "from calc import double, add")
    tests = FileView("test_calc.py", swapped)
    assert [a.name for a in reached_functions([calc], "calc.py:2: in add\n", [tests])] == ["add", "double"]
    assert [a.name for a in reached_functions([calc], "", [tests])] == ["double", "add"]
    assert reached_functions([calc], "", [FileView("test_x.py", "def test_x(): pass\n")]) == []
    # a file that is little more than the function: its reply costs a whole file's tokens (large)
    [large] = reached_functions([FileView("calc.py", ADD_BUGGY)], "calc.py:2: in add\n", [tests])
    assert large.name == "add" and large.large
    # a smaller reached function comes before a large one, even the traceback's
    long_add = "def add(a, b):\n" + "    a = a\n" * 6 + "    return a - b\n"
    ranked = reached_functions([FileView("calc.py", long_add + "\n\ndef double(x):\n    return 2 * x\n")],
                               "calc.py:8: in add\n", [tests])
    assert [(a.name, a.large) for a in ranked] == [("double", False), ("add", True)]


def test_after_the_one_call_a_function_reply_is_merged_back_by_name_and_judged(project):
    model = ScriptedModel(timed([reply(BUGGY), function(ADD_FIXED)], [FIRST_SECONDS, 0.0]))
    s = session(project, model, function_asks=4, function_time_budget=40)  # room on a loaded machine
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED  # `double` kept as it was
    one_call, ask = (c["messages"][0].content for c in model.calls)
    assert model.calls[0]["temperature"] == 0.0 and "Reply with the whole corrected calc.py" in one_call
    instruction = one_call.rindex("\n\n") + 2  # the same prompt but its last sentence: the KV cache holds it
    assert ask[:instruction] == one_call[:instruction]
    assert ask[instruction:] == ("Reply with only `add` of calc.py, corrected and complete, in one ```python "
                                 "block.")
    assert model.calls[1]["stop"] == FUNCTION_STOP
    assert "`add` asked for alone (greedy)" in result.answer


def test_the_unchanged_file_and_repeated_candidates_are_dropped_before_any_test_runs(project):
    replies = [reply(BUGGY), function(ADD_BUGGY), function(ADD_WRONG), function(ADD_WRONG),
               function(ADD_FIXED)]
    model = ScriptedModel(timed(replies, [FIRST_SECONDS, 0, 0, 0, 0]))
    s = session(project, model, function_asks=4, function_time_budget=40)  # room for every ask
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED
    assert len(model.calls) == 5 and [c["temperature"] for c in model.calls] == [0.0, 0.0, 0.4, 0.8, 0.4]
    runs = [t for t in result.tool_steps() if t.name == "run_shell_command"]
    # the run before any edit, then one for each new candidate: ADD_WRONG once, ADD_FIXED
    assert len(runs) == 3
    assert "sample 3" in result.answer


@pytest.mark.parametrize("budget", [2.0, 4.0])
def test_the_asks_end_within_the_time_budget_of_the_first_calls_seconds(project, budget):
    began: list[float] = []  # when each call began

    def slow(text: str):
        def step(messages, tools, schema):
            began.append(time.monotonic())
            time.sleep(FIRST_SECONDS)
            return text
        return step

    wrong = [function(ADD_WRONG.replace("a * b", f"a * b + {n}")) for n in range(8)]
    model = ScriptedModel([slow(reply(BUGGY)), *(slow(w) for w in wrong)])
    # no whole-file call after the one call: the function asks are the last calls
    s = session(project, model, function_asks=8, function_time_budget=budget, max_model_calls=1)
    result = s.send(REQUEST)
    s.close()
    assert not result.ok and (project / "calc.py").read_text() == BUGGY
    asks = len(model.calls) - 1
    # each ask takes the one call's seconds, and each candidate a test run (none, on a loaded machine)
    assert asks <= budget - 1 and model.calls[0]["temperature"] == 0.0
    # the last ask ended within the budget, counted from when the one call began
    assert began[-1] + FIRST_SECONDS <= began[0] + budget * FIRST_SECONDS + 0.5


def test_no_function_ask_without_the_setting(project):
    model = ScriptedModel(timed([reply(BUGGY), reply(FIXED)], [FIRST_SECONDS, 0]))
    s = session(project, model, function_asks=0, max_model_calls=2)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and len(model.calls) == 2
    assert "Reply with only" not in model.calls[1]["messages"][-1].content
