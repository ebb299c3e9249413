"""The turn guards' readings of a request: which files it carries, and whether a question put to the user
is their own request handed back."""

from __future__ import annotations

from acode.agent.loop.turn_guards import TurnGuards, attached_files, is_own_question
from acode.agent.session.at_refs import expand_at_refs
from acode.llm.types import ToolCall
from acode.tools.base import ToolContext


def test_attached_files_are_read_from_the_expanded_prompt(tmp_path):
    (tmp_path / "util.py").write_text("X = 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# a\n")
    prompt = expand_at_refs("what does @util.py do?", ToolContext(workspace=tmp_path),
                            read_only=["docs/"]).prompt
    assert attached_files(prompt) == {"util.py", "docs/a.md"}
    assert attached_files("Content from @util.py:\nnot a block of ours") == set()


def test_a_question_is_the_users_own_when_it_says_the_same():
    assert is_own_question("what does @util.py do?", ["What does util.py do?"])
    assert not is_own_question("what does @util.py do?", ["Which Python version do you use?"])
    guards = TurnGuards("rename the helper")
    assert guards.precheck(ToolCall(name="ask_user", arguments={"questions": ["Which helper?"]})) is None
    refused = guards.precheck(ToolCall(name="ask_user", arguments={"questions": ["Rename the helper?"]}))
    assert refused is not None and refused.display and guards.answer_next


def test_a_refused_path_ends_the_turn_only_when_the_request_named_it():
    """A sub-agent's task ("create math_utils.py") whose model tried ../escape.py first goes on; a request
    that asks for ../outside.txt is answered once it is refused."""
    from acode.agent.loop.result import ToolStep
    from acode.agent.loop.turn_guards import TurnGuards
    from acode.tools.base import ToolResult

    refused = ToolResult(error="outside the workspace", refused=True)
    wandering = TurnGuards("create math_utils.py with add(a, b)")
    wandering.observe(ToolStep(turn=1, call_id="1", name="write_file", output="",
                               arguments={"file_path": "../escape.py", "content": "x"},
                               ok=False, decision="allowed", error="outside the workspace"), refused)
    assert wandering.answer_next == ""
    asked = TurnGuards("read ../outside.txt")
    asked.observe(ToolStep(turn=1, call_id="1", name="read_file", output="",
                           arguments={"file_path": "../outside.txt"}, ok=False,
                           decision="allowed", error="outside the workspace"), refused)
    assert "was refused" in asked.answer_next
