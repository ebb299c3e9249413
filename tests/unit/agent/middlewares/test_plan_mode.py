"""Plan mode: read-only research, plan files only in the session's plans folder, approval paths.
Through the real AgentLoop, approval policy and file tools, with a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.agent_loop import AgentLoop
from acode.agent.middlewares.plan_mode import PlanDecision, PlanMode, plan_tools
from acode.agent.session.system_prompt import MODE_NOTES
from acode.llm.scripted import ScriptedModel
from acode.tools.base import ToolContext, ToolRegistry
from acode.tools.builtin import default_registry

PLAN = "# Plan\n1. Create hello.py printing hello\n2. Run it\n"


def make_loop(tmp_path: Path, steps: list, **plan_kwargs) -> tuple[AgentLoop, PlanMode, Path]:
    ws = tmp_path / "ws"
    ws.mkdir()
    registry: ToolRegistry = default_registry(["read_file", "write_file", "replace", "run_shell_command"])
    for tool in plan_tools():
        registry.register(tool)
    ctx = ToolContext(workspace=ws, session_id="s1")
    plan = PlanMode(ctx=ctx, mode_notes=MODE_NOTES, **plan_kwargs)
    loop = AgentLoop(ScriptedModel(steps), registry, ctx, middlewares=[plan], policy=ApprovalPolicy())
    return loop, plan, ws


def tool_outputs(state) -> list[str]:
    return [m.content for m in state.history if m.role == "tool"]


def test_plan_mode_blocks_edits_allows_plan_file_and_approval_switches_mode(tmp_path):
    plan_path = ".acode/plans/s1/plan.md"
    steps = [
        {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}},
        {"tool": "write_file", "arguments": {"file_path": ".acode/plans/s1/notes.txt", "content": "x"}},
        {"tool": "run_shell_command", "arguments": {"command": "echo hi"}},
        {"tool": "write_file", "arguments": {"file_path": plan_path, "content": PLAN}},
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
        {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}},
        "Created hello.py as planned.",
    ]
    loop, _, ws = make_loop(tmp_path, steps, approve_plan=True)
    state = loop.new_state(
        f"sys\nApproval mode: plan. {MODE_NOTES['plan']}", session_id="s1", approval_mode="plan"
    )
    result = loop.run(state, "Add hello.py")

    assert result.stop_reason == "answer"
    outputs = tool_outputs(state)
    assert "plan mode is read-only" in outputs[0]
    assert "only Markdown plan files" in outputs[1]
    assert "error" in outputs[2]  # no shell in plan mode
    assert (ws / plan_path).read_text() == PLAN
    assert "approved the plan" in outputs[4] and "auto_edit" in outputs[4]
    assert (ws / "hello.py").read_text() == "print('hello')\n"
    assert state.approval_mode == "auto_edit"
    assert state.approved_plan == (ws / plan_path).resolve()
    assert f"Approved plan: {state.approved_plan}" in state.history[0].content
    assert "Approval mode: auto_edit." in state.history[0].content
    # the model was told where its plans folder is on its first turn
    first_prompt = loop.model.calls[0]["messages"][-1].content
    assert str((ws / ".acode/plans/s1").resolve()) in first_prompt


def test_rejected_plan_sends_feedback_back_and_stays_in_plan_mode(tmp_path):
    seen = []

    def approver(path: Path, text: str) -> PlanDecision:
        seen.append((path.name, text))
        if len(seen) == 1:
            return PlanDecision(approved=False, feedback="also add a test")
        return PlanDecision(approved=True, mode="default")

    steps = [
        {"tool": "write_file", "arguments": {"file_path": ".acode/plans/s1/plan.md", "content": PLAN}},
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
        {
            "tool": "replace",
            "arguments": {
                "file_path": ".acode/plans/s1/plan.md",
                "old_string": "2. Run it",
                "new_string": "2. Test it",
            },
        },
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
        "Plan approved; starting.",
    ]
    loop, _, _ = make_loop(tmp_path, steps, approver=approver)
    state = loop.new_state("sys", session_id="s1", approval_mode="plan", interactive=True)
    loop.run(state, "Add hello.py")
    outputs = tool_outputs(state)
    assert "did not approve" in outputs[1] and "also add a test" in outputs[1]
    assert seen[1][1].endswith("2. Test it\n")
    assert state.approval_mode == "default"


def test_non_interactive_without_approve_plan_stops_with_the_plan(tmp_path):
    steps = [
        {"tool": "write_file", "arguments": {"file_path": ".acode/plans/s1/plan.md", "content": PLAN}},
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
    ]
    loop, _, _ = make_loop(tmp_path, steps)
    state = loop.new_state("sys", session_id="s1", approval_mode="plan")
    result = loop.run(state, "Add hello.py")
    assert result.stop_reason == "plan_not_approved"
    assert "--approve-plan" in result.message
    assert result.answer == PLAN
    assert state.approval_mode == "plan"


def test_enter_plan_mode_tool_switches_and_exit_outside_plan_mode_is_an_error(tmp_path):
    steps = [
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
        {"tool": "run_shell_command", "arguments": {"command": "true"}},  # work between the two
        {"tool": "enter_plan_mode", "arguments": {"reason": "big refactor"}},
        {"tool": "write_file", "arguments": {"file_path": "a.py", "content": "x"}},
        "I will plan first.",
    ]
    loop, plan, ws = make_loop(tmp_path, steps)
    state = loop.new_state("sys", session_id="s1", approval_mode="yolo")
    loop.run(state, "refactor")
    outputs = tool_outputs(state)
    assert "error" in outputs[0]
    assert "plan mode" in outputs[2] and ".acode/plans/s1" in outputs[2]
    assert "read-only" in outputs[3]
    assert state.approval_mode == "plan" and plan.previous_mode == "yolo"
    assert not (ws / "a.py").exists()


@pytest.mark.parametrize("name", ["../../evil.md", "plan.txt", "/tmp/plan.md"])
def test_exit_plan_mode_refuses_files_outside_the_plans_folder(tmp_path, name):
    steps = [{"tool": "exit_plan_mode", "arguments": {"plan_filename": name}}, "ok"]
    loop, _, _ = make_loop(tmp_path, steps, approve_plan=True)
    state = loop.new_state("sys", session_id="s1", approval_mode="plan")
    loop.run(state, "x")
    assert "must be a .md file inside" in tool_outputs(state)[0]


def test_plan_mode_toggles_without_work_in_between_stop_at_once(tmp_path):
    """The 1.5B toggled enter_plan_mode / exit_plan_mode for 5.5 minutes after a refused path (issue 28)."""
    toggles = [
        {"tool": "enter_plan_mode", "arguments": {}},
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
        {"tool": "enter_plan_mode", "arguments": {}},
        {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}},
    ]
    loop, _, _ = make_loop(tmp_path, [*toggles, "The file is outside the project, so I cannot read it."])
    state = loop.new_state("sys", session_id="s1", approval_mode="yolo", interactive=True)
    result = loop.run(state, "read ../outside.txt")
    ran = [(s.name, s.decision) for s in result.tool_steps()]
    assert ran == [("enter_plan_mode", "allowed"), ("exit_plan_mode", "repeated")]  # the second is not run
    assert loop.model.calls[2]["schema"] == {"anyOf": [{"type": "object", "properties": {
        "answer": {"type": "string"}}, "required": ["answer"]}]}  # the next call may only answer
    # a scripted model ignores the constraint and toggles on: its call is not run, the turn ends
    assert result.ok and result.turns == 3 and result.answer.startswith("Stopped: exit_plan_mode right after")
