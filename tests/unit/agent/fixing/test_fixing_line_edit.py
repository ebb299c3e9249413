"""One-line edits: the reply's small diff applied to the file it names, and their place in the fixer (after
the one call, before the fixer's own framing), with the scripted model and the real tools on a real
pytest project."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply, session
from tests.helpers.fixing_replies import PLACEHOLDER_REPLY, diff, echo

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.line_edit import PLACEHOLDERS, apply_line_edit, read_hunk
from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.config import Settings
from acode.llm.scripted import ScriptedModel

CALC = FileView("calc.py", BUGGY)
TEST_VIEW = FileView("test_calc.py", TESTS)


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo


# -- reading and applying a reply ---------------------------------------------------------------
def test_a_line_written_without_its_indentation_is_put_back_at_the_files_indentation():
    assert apply_line_edit("```diff\n- return a - b\n+ return a + b\n```", [CALC]) == {"calc.py": FIXED}
    assert apply_line_edit(diff("    return a - b", "    return a + b"), [CALC]) == {"calc.py": FIXED}


def test_a_git_style_hunk_with_headers_and_context_is_read_as_its_changed_lines():
    hunk = ("```diff\ndiff --git a/calc.py b/calc.py\nindex 1234567..89abcde 100644\n--- a/calc.py\n"
            "+++ b/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n```")
    assert apply_line_edit(hunk, [CALC]) == {"calc.py": FIXED}
    read = read_hunk(hunk)
    assert read is not None and read.old == ["    return a - b"] and read.new == ["    return a + b"]


def test_a_line_of_the_tests_or_no_line_at_all_is_no_edit():
    # the small models often "fix" the test's assertion: it is in no target, so nothing is written
    the_test = diff("    assert add(2, 3) == 5", "    assert add(2, 3) == -1")
    assert "none of calc.py" in apply_line_edit(the_test, [CALC])
    assert "no line to change" in apply_line_edit("```python\ndef add(a, b):\n    return a + b\n```", [CALC])
    assert "no line to change" in apply_line_edit("The bug is in add.", [CALC])


def test_an_edit_that_breaks_the_files_syntax_is_no_candidate():
    assert "syntax error" in apply_line_edit(diff("    return a - b", "    return a +"), [CALC])


def test_a_line_written_a_little_differently_is_still_found_and_a_different_line_is_not():
    assert apply_line_edit(diff("return a-b", "return a + b"), [CALC]) == {"calc.py": FIXED}
    assert isinstance(apply_line_edit(diff("return a * b * c", "return a + b"), [CALC]), str)


def test_several_changed_lines_replace_the_same_lines_in_the_file():
    source = "def f(x):\n    if x:\n        y = 1\n        z = 2\n    return y + z\n"
    edit = "```diff\n-        y = 1\n-        z = 2\n+        y = 2\n+        z = 1\n```"
    assert apply_line_edit(edit, [FileView("f.py", source)]) == {
        "f.py": source.replace("y = 1\n        z = 2", "y = 2\n        z = 1")}


def test_a_line_that_occurs_twice_is_changed_where_the_prompt_showed_it():
    source = "def a():\n    return 1\n\n\ndef b():\n    return 1\n"
    view = FileView("m.py", source, shown_part="def b():\n    return 1\n")
    assert apply_line_edit(diff("    return 1", "    return 2"), [view]) == {
        "m.py": "def a():\n    return 1\n\n\ndef b():\n    return 2\n"}


# -- in the fixer ---------------------------------------------------------------------------------
def test_when_the_one_call_echoes_a_one_line_edit_is_tested_and_becomes_the_answer(project):
    model = ScriptedModel([echo(), diff("    assert add(2, 3) == 5", "    assert add(2, 3) == -1"),
                           diff("    return a - b", "    return a * b"),
                           diff("    return a - b", "    return a + b")])
    s = session(project, model, line_edit_calls=8)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and "passes now" in result.answer and "2 of them one-line edits" in result.answer
    assert (project / "calc.py").read_text() == FIXED and (project / "test_calc.py").read_text() == TESTS
    calls = model.calls
    assert len(calls) == 4  # the one call, then three line asks; the answer ends them
    # the line asks: the one call's prompt with another last instruction, greedy first, then samples,
    # each reply a few dozen tokens and cut at the end of its block
    one_call, line_ask = calls[0]["messages"][0].content, calls[1]["messages"][0].content
    head = one_call.rindex("\n\n")
    assert line_ask[:head] == one_call[:head] and "```diff" in line_ask[head:]
    assert [c["temperature"] for c in calls[1:]] == [0.0, 0.7, 0.7]
    assert len({c["seed"] for c in calls[1:]}) == 3
    assert all(c["max_tokens"] <= 256 and c["stop"] == ["\n```\n"] for c in calls[1:])
    # the test-file line was never written; the wrong edit was written, tested and replaced
    writes = [s.arguments["content"] for s in result.tool_steps() if s.name == "write_file"]
    assert writes == [BUGGY.replace("a - b", "a * b"), FIXED]


def test_line_edits_that_fail_are_put_back_and_the_fixers_own_framing_follows(project):
    wrong = diff("    return a - b", "    return a * b")
    model = ScriptedModel([echo(), wrong, wrong, "no idea", reply(FIXED)])
    s = session(project, model, line_edit_calls=3)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED
    assert len(model.calls) == 5 and model.calls[4]["messages"][0].role == "system"  # the fixer's framing
    writes = [s.arguments["content"] for s in result.tool_steps() if s.name == "write_file"]
    assert writes == [BUGGY.replace("a - b", "a * b"), FIXED]  # a repeated edit is not tested twice


def test_every_line_edit_failing_leaves_the_file_as_it_was(project):
    model = ScriptedModel([echo(), diff("    return a - b", "    return a * b"), echo()])
    s = session(project, model, line_edit_calls=1, max_model_calls=2)
    result = s.send(REQUEST)
    s.close()
    assert not result.ok and result.stop_reason == "tests_failing" and "as they were" in result.message
    assert (project / "calc.py").read_text() == BUGGY


@pytest.mark.slow
def test_a_line_edit_that_passes_the_tests_but_breaks_the_files_examples_is_not_the_answer(git_repo):
    source = 'def add(a, b):\n    """\n    >>> add(1, 1)\n    2\n    """\n    return a - b\n'
    (git_repo / "calc.py").write_text(source)
    (git_repo / "test_calc.py").write_text(
        "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n")
    model = ScriptedModel([reply(source), diff("    return a - b", "    return 4"),
                           diff("    return a - b", "    return a + b")])
    s = session(git_repo, model, line_edit_calls=2)
    result = s.send("The tests in test_calc.py fail because calc.py has a bug. Fix the bug in calc.py.")
    s.close()
    assert result.ok and "return a + b" in (git_repo / "calc.py").read_text()
    assert "examples still fail" not in result.answer


@pytest.mark.slow
def test_a_candidate_whose_tests_hang_is_stopped_at_the_fixers_limit_and_the_next_one_tried(project):
    hangs = BUGGY.replace("    return a - b", "    while True:\n        pass")
    model = ScriptedModel([reply(hangs), diff("    return a - b", "    return a + b")])
    s = session(project, model, line_edit_calls=1, test_seconds_min=1.5)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED
    runs = [t for t in result.tool_steps() if t.name == "run_shell_command"]
    # the first run has no limit of its own; each candidate's run has one: 5x the first, at least 1.5 s
    assert "timeout_seconds" not in runs[0].arguments
    assert all(r.arguments["timeout_seconds"] >= 1.5 for r in runs[1:])
    assert "[still running after" in runs[1].output and "still running" not in runs[2].output


def test_the_history_is_not_compressed_before_the_fixers_own_calls(project):
    """The fixer's prompts do not carry the session's history, so compression has nothing to shorten before
    them. Before: every fixer call past the threshold began with a summary of the history, a model call of
    its own that no model step recorded (minutes of a 10-call run with the 1.5B)."""
    settings = Settings.model_validate({
        **{name: {"enabled": False} for name in ("next_speaker", "loop_detection", "checkpoints")},
        "compression": {"enabled": True, "threshold": 0.01},  # any history is over it
        "agent": {"fix": {"test_command": f"{sys.executable} -m pytest -q -p no:cacheprovider",
                          "line_edit_calls": 2}},
    })
    model = ScriptedModel([echo(), diff("    return a - b", "    return a * b"),
                           diff("    return a - b", "    return a + b")])
    s = build_session(settings, project, SessionOptions(approval_mode="yolo"), model=model)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED
    assert len(model.calls) == 3 and all(c["schema"] is None for c in model.calls)  # no summary call


def test_a_reply_that_copies_the_instructions_example_block_ends_the_line_asks(project):
    model = ScriptedModel([echo(), PLACEHOLDER_REPLY, echo()])
    s = session(project, model, line_edit_calls=8, max_model_calls=2)
    result = s.send(REQUEST)
    s.close()
    assert not result.ok and len(model.calls) == 3  # the one call, one line ask, the fixer's framing
    assert model.calls[2]["messages"][0].role == "system"
    assert (project / "calc.py").read_text() == BUGGY
    assert all(p in model.calls[1]["messages"][0].content for p in PLACEHOLDERS)  # the template's own


def test_a_sampled_line_ask_that_copies_the_example_block_is_skipped_not_the_end(project):
    # the 1.5B copies the example now and then on a sample (Novel/17: its fifth ask), not on its greedy ask
    model = ScriptedModel([echo(), diff("    return a - b", "    return a * b"), PLACEHOLDER_REPLY,
                           diff("    return a - b", "    return a + b")])
    s = session(project, model, line_edit_calls=8)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and (project / "calc.py").read_text() == FIXED and len(model.calls) == 4
