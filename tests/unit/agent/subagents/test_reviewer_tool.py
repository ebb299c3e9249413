"""The reviewer tool sees the session's conversation and the latest content of every changed file,
trims both to the context budget, and returns the model's critique to the agent."""

from __future__ import annotations

import pytest

from acode.agent.loop.agent_loop import AgentLoop
from acode.agent.subagents.reviewer_tool import ReviewerTool
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Message
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry

CRITIQUE = "## Verdict\nnot ready: run `pytest -q`."


def test_reviewer_sees_the_files_the_session_changed(tmp_path):
    model = ScriptedModel(
        [
            {
                "tool": "write_file",
                "arguments": {"file_path": "calc.py", "content": "def add(a, b):\n    return a - b\n"},
            },
            {
                "tool": "replace",
                "arguments": {"file_path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
            },
            {"tool": "write_file", "arguments": {"file_path": "notes/todo.md", "content": "- tests\n"}},
            {"tool": "reviewer", "arguments": {"task_description": "add an add() function to calc.py"}},
            CRITIQUE,  # the reviewer's own model call
            "Done after review.",
        ]
    )
    registry = default_registry()
    registry.register(ReviewerTool(model))
    ctx = ToolContext(workspace=tmp_path)
    loop = AgentLoop(model, registry, ctx)
    state = loop.new_state("You are the agent.", session_id="s", approval_mode="yolo")
    result = loop.run(state, "please add add() to calc.py")
    assert result.answer == "Done after review."
    review_call = model.calls[4]
    assert review_call["tools"] == []  # the reviewer can call nothing
    system, request = review_call["messages"]
    assert "expert code reviewer and project manager" in system.content
    assert "## calc.py" in request.content and "return a + b" in request.content  # latest content
    assert "return a - b" not in request.content.split("# Files changed")[1]
    assert "## notes/todo.md" in request.content
    assert "please add add() to calc.py" in request.content  # the conversation
    assert "add an add() function to calc.py" in request.content  # the task
    reviewer_result = next(m for m in state.history if m.role == "tool" and m.name == "reviewer")
    assert reviewer_result.content.startswith(CRITIQUE)  # the loop may append a task reminder


def test_history_and_files_are_trimmed_to_the_context_budget(tmp_path):
    (tmp_path / "big.py").write_text("x = 1\n" * 3000)
    (tmp_path / "small.py").write_text("y = 2\n")
    (tmp_path / "huge.py").write_text("z = 3\n" * 3000)
    model = ScriptedModel(["looks fine"], context_window=2048)
    history = [Message.system("sys")] + [
        Message.user(f"message number {i} " + "pad " * 40) for i in range(60)
    ]
    ctx = ToolContext(
        workspace=tmp_path,
        state={"history": history, "files_changed": ["big.py", "small.py", "huge.py", "gone.py"]},
    )
    tool = ReviewerTool(model, max_tokens=200)
    out = tool.run(tool.Args(task_description="tidy up"), ctx)
    assert out.output == "looks fine"
    request = model.calls[0]["messages"][1].content
    prompt_tokens = sum(model.count_tokens(m.content) for m in model.calls[0]["messages"])
    assert prompt_tokens + 200 <= 2048
    assert "## big.py (cut to fit the context budget)" in request
    assert "## small.py" in request and "## gone.py (deleted since it was changed)" in request
    assert "Changed but not shown (no room left): huge.py" in request
    assert "message number 59" in request and "message number 0 " not in request  # newest kept
    assert "oldest messages left out" in request


@pytest.mark.real_model
def test_reviewer_with_the_real_model(tmp_path, real_model):
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    ctx = ToolContext(
        workspace=tmp_path,
        state={
            "history": [Message.user("Add add(a, b) to calc.py"), Message.assistant("I wrote calc.py.")],
            "files_changed": ["calc.py"],
        },
    )
    tool = ReviewerTool(real_model, max_tokens=150)
    out = tool.run(tool.Args(task_description="add(a, b) in calc.py returns the sum"), ctx)
    assert out.ok and out.output.startswith("## Alignment with the task")  # the critique's structure
    assert out.display == "review of 1 changed file(s): calc.py"


def test_system_prompt_tells_the_agent_when_to_call_the_reviewer(tmp_path):
    from acode.agent.session.system_prompt import build_system_prompt

    line = "Call reviewer after significant changes and before declaring the task done."
    with_tool = build_system_prompt(
        workspace=tmp_path, tool_names=["read_file", "reviewer"], approval_mode="default"
    )
    without = build_system_prompt(workspace=tmp_path, tool_names=["read_file"], approval_mode="default")
    assert line in with_tool and line not in without
