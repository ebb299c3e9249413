"""Approval decisions: every mode x tool kind x interactive / non-interactive, rules, and "always"."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from tests.helpers.agent_fakes import ReadTool, ShellTool, WriteTool, make_loop, new_state

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.middleware import AgentState
from acode.config.agent import ToolRules
from acode.llm.types import ToolCall
from acode.tools.base import Tool, ToolContext, ToolResult


class NoArgs(BaseModel):
    pass


class AskUserTool(Tool):
    name = "ask_user"
    description = "Ask."
    Args = NoArgs
    kind = "interact"

    def run(self, args, ctx):
        return ToolResult(output="answer")


TOOLS = {
    "read": (ReadTool(), {"file_path": "a.py"}),
    "edit": (WriteTool(), {"file_path": "a.py", "content": "x"}),
    "execute": (ShellTool(), {"command": "pytest -q"}),
    "interact": (AskUserTool(), {}),
}

# mode -> kind -> what happens when nobody can be asked (non-interactive) / when the user says yes
EXPECTED = {
    "default": {"read": "allow", "edit": "ask", "execute": "ask", "interact": "allow"},
    "auto_edit": {"read": "allow", "edit": "allow", "execute": "ask", "interact": "allow"},
    "yolo": {"read": "allow", "edit": "allow", "execute": "allow", "interact": "allow"},
    "plan": {"read": "allow", "edit": "deny", "execute": "deny", "interact": "allow"},
}


def decide(mode, kind, *, interactive, rules=None, answer="yes", tmp_path):
    tool, args = TOOLS[kind]
    asked = []

    def approver(request):
        asked.append(request.summary)
        return answer

    policy = ApprovalPolicy(rules, approver=approver)
    state = AgentState(
        session_id="s", workspace=tmp_path, history=[], approval_mode=mode, interactive=interactive
    )
    call = ToolCall(name=tool.name, arguments=args)
    first = policy.decide(state, call, tool, ToolContext(workspace=tmp_path))
    return first, policy.resolve(state, call, tool, first), asked


@pytest.mark.parametrize("mode", list(EXPECTED))
@pytest.mark.parametrize("kind", list(TOOLS))
@pytest.mark.parametrize("interactive", [False, True])
def test_every_mode_kind_and_interactivity(mode, kind, interactive, tmp_path):
    first, final, asked = decide(mode, kind, interactive=interactive, tmp_path=tmp_path)
    expected = EXPECTED[mode][kind]
    assert first.action == expected
    if expected == "ask":
        if interactive:
            assert final.action == "allow" and len(asked) == 1
        else:
            assert final.action == "deny" and not asked
            assert "approval needed in non-interactive mode" in final.reason
            assert ("yolo" in final.reason) and ("auto_edit" in final.reason or kind == "execute")
    else:
        assert final.action == expected and not asked


def test_user_saying_no_denies_with_a_message(tmp_path):
    _, final, asked = decide("default", "edit", interactive=True, answer="no", tmp_path=tmp_path)
    assert final.action == "deny" and "denied by the user" in final.reason and asked == ["write_file a.py"]


def test_always_is_remembered_for_the_tool_and_for_the_shell_program(tmp_path):
    policy = ApprovalPolicy(approver=lambda request: "always")
    state = AgentState(
        session_id="s", workspace=tmp_path, history=[], approval_mode="default", interactive=True
    )
    ctx = ToolContext(workspace=tmp_path)
    shell, write = ShellTool(), WriteTool()
    first = ToolCall(name="run_shell_command", arguments={"command": "pytest -q tests"})
    assert policy.resolve(state, first, shell, policy.decide(state, first, shell, ctx)).action == "allow"
    again = ToolCall(name="run_shell_command", arguments={"command": "pytest -x"})
    other = ToolCall(name="run_shell_command", arguments={"command": "rm -rf build"})
    assert policy.decide(state, again, shell, ctx).action == "allow"
    assert policy.decide(state, other, shell, ctx).action == "ask"
    edit = ToolCall(name="write_file", arguments={"file_path": "x", "content": ""})
    policy.resolve(state, edit, write, policy.decide(state, edit, write, ctx))
    assert policy.decide(state, edit, write, ctx).action == "allow"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git status", "allow"),
        ("git status && ls -la", "allow"),
        ("git status && rm -rf /", "deny"),
        ("ls | sh", "deny"),  # sh runs what ls prints: a deny rule could hide in it (issue 30)
        ("git push origin main", "deny"),
        ("gitx status", "ask"),  # prefixes match whole words
        ("ls $(rm -rf x)", "deny"),  # the substituted command is checked too (issue 14: was "ask")
        ("ls $(cat x)", "ask"),  # cat matches no allow prefix
        ("rm -rf build", "deny"),
    ],
)
def test_shell_rules_check_every_segment_and_deny_wins(command, expected, tmp_path):
    rules = ToolRules(allow_shell=["git", "ls"], deny_shell=["rm -rf", "git push"])
    policy = ApprovalPolicy(rules)
    state = AgentState(session_id="s", workspace=tmp_path, history=[], approval_mode="default")
    call = ToolCall(name="run_shell_command", arguments={"command": command})
    assert policy.decide(state, call, ShellTool(), ToolContext(workspace=tmp_path)).action == expected


def test_tool_rules_allow_and_deny_deny_even_in_yolo(tmp_path):
    rules = ToolRules(allow_tools=["write_file"], deny_tools=["read_file"])
    _, edit, _ = decide("default", "edit", interactive=False, rules=rules, tmp_path=tmp_path)
    _, read, _ = decide("yolo", "read", interactive=False, rules=rules, tmp_path=tmp_path)
    _, plan_edit, _ = decide("plan", "edit", interactive=False, rules=rules, tmp_path=tmp_path)
    assert edit.action == "allow"
    assert read.action == "deny" and "deny_tools" in read.reason
    assert plan_edit.action == "deny"  # rules never widen plan mode


def test_plan_mode_allows_writing_the_plan_file_only(tmp_path):
    plans = tmp_path / ".acode" / "plans"
    policy = ApprovalPolicy()
    state = AgentState(session_id="s", workspace=tmp_path, history=[], approval_mode="plan")
    ctx = ToolContext(workspace=tmp_path, extra_writable=(plans,))
    write = WriteTool()
    inside = ToolCall(name="write_file", arguments={"file_path": ".acode/plans/p.md", "content": "#"})
    escape = ToolCall(name="write_file", arguments={"file_path": ".acode/plans/../../src.py", "content": "#"})
    assert policy.decide(state, inside, write, ctx).action == "allow"
    assert policy.decide(state, escape, write, ctx).action == "deny"


def test_denials_reach_the_model_in_a_non_interactive_run(tmp_path, scripted):
    model = scripted(
        {"tool": "write_file", "arguments": {"file_path": "x.py", "content": "print(1)"}},
        {"tool": "run_shell_command", "arguments": {"command": "python x.py"}},
        "I could not make changes.",
    )
    loop = make_loop(model, tmp_path)
    result = loop.run(new_state(loop, mode="default"), "go")
    write, shell = result.tool_steps()
    assert write.decision == shell.decision == "denied"
    assert "non-interactive" in json.loads(write.output)["error"]
    assert not (tmp_path / "x.py").exists() and loop.ctx.state.get("ran") is None
    assert result.ok  # denial is information for the model, not a failure of the loop


def test_interactive_approver_is_asked_once_per_edit(tmp_path, scripted):
    asked = []
    model = scripted(
        {"tool": "write_file", "arguments": {"file_path": "x.py", "content": "1"}},
        {"tool": "write_file", "arguments": {"file_path": "y.py", "content": "2"}},
        "done",
    )
    answers = iter(["yes", "no"])
    loop = make_loop(model, tmp_path, approver=lambda req: (asked.append(req.summary), next(answers))[1])
    loop.run(new_state(loop, mode="default", interactive=True), "go")
    assert asked == ["write_file x.py", "write_file y.py"]
    assert (tmp_path / "x.py").exists() and not (tmp_path / "y.py").exists()
