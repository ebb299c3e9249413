"""The ask for a function that is most of its file (agent.fix.large_function_asks, issue 51; off by
default, on here): after the one call, which stays first and the same byte for byte, one greedy ask for
only the function the failing test reaches, even where that function is the whole file; then the line
asks, which keep their token budget (the function's reply, about a whole file's tokens, is not counted
against it: the clock bounds it). A reply that leaves the file unchanged or repeats a candidate is
dropped before any test runs. With the scripted model (its first call made slow on purpose: the clock's
unit) and the real tools on pytest."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_calc import REQUEST, reply, session
from tests.helpers.fixing_replies import diff
from tests.helpers.repos import make_git_repo

from acode.llm.scripted import ScriptedModel

BUGGY = "def add(a, b):\n    return a - b\n"  # the function is the whole file
FIXED = BUGGY.replace("a - b", "a + b")
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# a wrong function as long as the whole file the one call writes back: a whole file's tokens
WRONG = "def add(a, b):\n    # " + "the sum of a and b, " * 4 + "\n    return a * b\n"
FIRST_SECONDS = 1.5  # the one call's seconds: the clock's unit
# the ask on (agent.fix.large_function_asks is 0 by default), with room on a loaded machine
ROOM = {"large_function_asks": 1, "function_time_budget": 40}


def function(text: str) -> str:
    return f"```python\n{text}```\n"


def slow(text: str) -> dict:
    return {"sleep": FIRST_SECONDS, "text": text}


def fix(root: Path, replies: list, **settings):
    project = make_git_repo(root, {"calc.py": BUGGY, "test_calc.py": TESTS})
    model = ScriptedModel(replies)
    s = session(project, model, **settings)
    result = s.send(REQUEST)
    s.close()
    runs = [t for t in result.tool_steps() if t.name == "run_shell_command"]
    return model, result, len(runs), (project / "calc.py").read_text()


def kind(call: dict) -> str:
    last = call["messages"][-1].content
    if "Reply with only `add` of calc.py" in last:
        return "function"
    return "line" if "```diff" in last else "whole"


def test_one_greedy_ask_for_the_whole_file_function_then_the_line_asks_keep_their_budget(tmp_path):
    lines = [diff("    return a - b", f"    return a * b + {n}") for n in range(6)]
    replies = [slow(reply(BUGGY)), function(WRONG), *lines, diff("    return a - b", "    return a + b")]
    model, result, runs, left = fix(tmp_path / "repo", replies, function_asks=4, line_edit_calls=8,
                                    token_budget=2, **ROOM)
    kinds = [kind(c) for c in model.calls]
    # one function ask (not function_asks' four: the large function gets large_function_asks, 1), greedy
    assert kinds[:2] == ["whole", "function"] and kinds.count("function") == 1
    assert [c["temperature"] for c in model.calls[:3]] == [0.0, 0.0, 0.0]
    assert kinds[2:] == ["line"] * (len(kinds) - 2) and len(kinds) > 2
    tokens = [s.usage.completion_tokens for s in result.model_steps()]
    first, asked, line = tokens[0], tokens[1], tokens[2:]
    assert asked >= first  # counted against token_budget, it would have left the line asks nothing
    # the line asks got the budget the one call left them: 2x its tokens, less its own
    assert sum(line[:-1]) < first <= sum(line)
    assert not result.ok and left == BUGGY
    assert runs == 1 + 1 + len(line)  # before any edit, the function's candidate, each line's


@pytest.mark.parametrize("asked", ["unchanged", "the one call's candidate"])
def test_the_unchanged_file_and_a_repeated_candidate_are_dropped_before_any_test_runs(tmp_path, asked):
    # the one call echoes and the function comes back as it was, or both write the same wrong function
    text = BUGGY if asked == "unchanged" else WRONG
    model, result, runs, left = fix(tmp_path / "repo", [slow(reply(text)), function(text)], max_model_calls=1,
                                    **ROOM)
    assert [kind(c) for c in model.calls] == ["whole", "function"]
    # the run before any edit, and the one call's candidate where there was one: the function's reply never
    assert runs == (1 if asked == "unchanged" else 2)
    assert not result.ok and left == BUGGY


def test_the_one_call_is_first_and_the_same_and_the_clock_bounds_the_ask(tmp_path):
    calls = {}
    for name, settings in [("asked", ROOM), ("off", {**ROOM, "large_function_asks": 0}),
                           ("no room", {**ROOM, "function_time_budget": 1.0})]:
        fixing = function(FIXED) if name == "asked" else diff("    return a - b", "    return a + b")
        model, result, _, left = fix(tmp_path / name.replace(" ", "-"), [slow(reply(BUGGY)), fixing],
                                     line_edit_calls=1, **settings)
        assert result.ok and left == FIXED
        calls[name] = model.calls
    assert [kind(c) for c in calls["asked"]] == ["whole", "function"]
    # off, or no room left on the clock (1x the one call's seconds: spent by the one call): the line ask next
    assert [kind(c) for c in calls["off"]] == [kind(c) for c in calls["no room"]] == ["whole", "line"]
    firsts = [c[0] for c in calls.values()]
    assert len({repr(f["messages"]) for f in firsts}) == 1
    assert all(f["temperature"] == 0.0 and f["seed"] == 1 for f in firsts)
