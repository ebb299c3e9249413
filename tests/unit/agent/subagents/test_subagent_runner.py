"""The sub-agent runner with the scripted model: complete_task ends it, limits get one grace turn,
investigators are read-only and hand in a validated report, invoke_agent delegates."""

from __future__ import annotations

import json

import pytest

from acode.agent.loop.agent_loop import AgentLoop
from acode.agent.subagents.definitions import AgentDefinition, load_agents
from acode.agent.subagents.runner import COMPLETE_TASK, InvokeAgent, SubagentRunner, restricted_registry
from acode.llm.types import Message
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry


@pytest.fixture
def ctx(tmp_path):
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return ToolContext(workspace=workspace)


def coder(**changes) -> AgentDefinition:
    return load_agents(None)["coder-agent"].model_copy(update=changes)


def tool_names(call) -> list[str]:
    return [spec.name for spec in call["tools"]]


def test_coder_writes_then_completes(scripted, ctx):
    model = scripted(
        {
            "tool": "write_file",
            "arguments": {"file_path": "math_utils.py", "content": "def add(a, b):\n    return a + b\n"},
        },
        {"tool": COMPLETE_TASK, "arguments": {"result": "math_utils.py"}},
    )
    result = SubagentRunner(model, default_registry()).run(coder(), "create math_utils.py", ctx)
    assert result.termination == "goal" and result.completed
    assert result.result == "math_utils.py" and result.turns == 2 and not result.grace_turn_used
    assert (ctx.workspace / "math_utils.py").read_text().startswith("def add")
    system = model.calls[0]["messages"][0]
    assert system.role == "system" and "coder agent" in system.content
    assert str(ctx.workspace) not in system.content and "never absolute paths" in system.content
    assert "invoke_agent" not in tool_names(model.calls[0]) and COMPLETE_TASK in tool_names(model.calls[0])
    assert "run_shell_command" not in tool_names(model.calls[0])


def test_max_turns_gives_one_grace_turn_with_only_complete_task(scripted, ctx):
    (ctx.workspace / "a.txt").write_text("A")
    model = scripted(
        {"tool": "read_file", "arguments": {"file_path": "a.txt"}},
        {"tool": "read_file", "arguments": {"file_path": "a.txt"}},
        {"json": {"result": "partial: read a.txt"}},
    )
    result = SubagentRunner(model, default_registry()).run(coder(max_turns=2), "look", ctx)
    assert result.termination == "max_turns" and result.grace_turn_used and result.completed
    assert result.result == "partial: read a.txt" and result.turns == 3
    grace = model.calls[-1]
    assert grace["tools"] == [] and grace["schema"]["required"] == [
        "result"
    ]  # decoded into the result schema
    assert "limit" in grace["messages"][-1].content


def test_timeout_then_grace_turn_that_does_not_finish(scripted, ctx):
    model = scripted(
        {"sleep": 0.3, "tool": "read_file", "arguments": {"file_path": "missing.txt"}},
        "I am still thinking",
        "still nothing",
    )
    result = SubagentRunner(model, default_registry()).run(coder(timeout_mins=0.2 / 60), "work", ctx)
    assert result.termination == "timeout" and result.grace_turn_used and not result.completed
    assert "stopped after" in result.message


def test_plain_answers_are_nudged_once_then_end_without_complete_task(scripted, ctx):
    model = scripted("All done, I think.", "Really done.")
    result = SubagentRunner(model, default_registry()).run(coder(), "x", ctx)
    assert result.termination == "no_complete_task" and not result.completed
    assert result.result == "Really done."
    assert "complete_task" in model.calls[1]["messages"][-1].content


def test_cancel_aborts_before_the_next_model_call(scripted, ctx):
    model = scripted({"tool": "read_file", "arguments": {"file_path": "x"}}, "never reached")
    calls = iter([False, True])
    result = SubagentRunner(model, default_registry()).run(
        coder(), "x", ctx, should_abort=lambda: next(calls)
    )
    assert result.termination == "aborted" and len(model.calls) == 1


def test_model_error_is_an_error_termination(scripted, ctx):
    result = SubagentRunner(scripted({"error": "backend down"}), default_registry()).run(coder(), "x", ctx)
    assert result.termination == "error" and "backend down" in result.message


def test_investigator_is_read_only_and_its_report_is_validated(scripted, ctx):
    investigator = load_agents(None)["codebase_investigator"].model_copy(
        update={"tools": ["read_file", "write_file", "run_shell_command", "invoke_agent"]}
    )
    registry = restricted_registry(default_registry(), investigator)
    assert registry.names() == ["read_file", COMPLETE_TASK]
    (ctx.workspace / "auth.py").write_text("def login(user):\n    return True\n")
    report = {
        "summary": "Login always succeeds.",
        "exploration_trace": ["read auth.py"],
        "relevant_locations": [
            {"file": "auth.py", "reason": "login accepts anyone", "key_symbols": ["login"]}
        ],
    }
    model = scripted(
        {"tool": "read_file", "arguments": {"file_path": "auth.py"}},
        {"tool": COMPLETE_TASK, "arguments": {"exploration_trace": []}},  # no summary: rejected
        {"tool": COMPLETE_TASK, "arguments": report},
    )
    result = SubagentRunner(model, default_registry()).run(investigator, "how does login work?", ctx)
    assert result.termination == "goal"
    assert result.report == report
    assert json.loads(result.result)["relevant_locations"][0]["key_symbols"] == ["login"]
    rejection = model.calls[2]["messages"][-1]
    assert rejection.role == "tool" and "summary" in rejection.content


def test_invoke_agent_from_the_main_loop(scripted, ctx):
    agents = load_agents(None)
    model = scripted(
        {"tool": "invoke_agent", "arguments": {"agent_name": "nobody", "prompt": "x"}},
        {"tool": "invoke_agent", "arguments": {"agent_name": "coder-agent", "prompt": "create hello.py"}},
        # the sub-agent's turns
        {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hi')\n"}},
        {"tool": COMPLETE_TASK, "arguments": {"result": "hello.py"}},
        # back in the main agent
        "The coder created hello.py.",
    )
    registry = default_registry()
    runner = SubagentRunner(model, registry)
    registry.register(InvokeAgent(runner, agents))
    loop = AgentLoop(model, registry, ctx)
    state = loop.new_state("You are the main agent.", session_id="main", approval_mode="auto_edit")
    outcome = loop.run(state, "make hello.py with a helper")
    assert outcome.answer == "The coder created hello.py."
    tool_messages = [m for m in state.history if m.role == "tool"]
    assert "Unknown agent 'nobody'" in tool_messages[0].content and "coder-agent" in tool_messages[0].content
    delegated = json.loads(tool_messages[1].content.splitlines()[0])  # the loop may add a reminder line
    assert delegated == {"agent": "coder-agent", "termination": "goal", "result": "hello.py"}
    assert ctx.state["files_changed"] == ["hello.py"]  # the sub-agent's edit counts for the session
    sub_system = model.calls[2]["messages"][0]
    assert isinstance(sub_system, Message) and "coder-agent" in sub_system.content
    assert "invoke_agent" not in tool_names(model.calls[2])
    assert "coder-agent" in next(s for s in model.calls[0]["tools"] if s.name == "invoke_agent").description


def test_plan_file_is_written_with_update_plan(scripted, ctx, tmp_path):
    plan = tmp_path / "plans" / "t1_plan.md"
    plan.parent.mkdir()
    plan.write_text("# Plan for coder-agent - make x\n")
    model = scripted(
        {"tool": "update_plan", "arguments": {"content": "1. write x.py\n2. finish"}},
        {"tool": COMPLETE_TASK, "arguments": {"result": "x.py"}},
    )
    result = SubagentRunner(model, default_registry()).run(coder(), "make x", ctx, plan_file=str(plan))
    assert result.termination == "goal"
    assert plan.read_text() == "# Plan for coder-agent - make x\n\n1. write x.py\n2. finish\n"
    assert (
        "update_plan" in tool_names(model.calls[0]) and "update_plan" in model.calls[0]["messages"][0].content
    )
    investigator = load_agents(None)["codebase_investigator"]
    assert "update_plan" not in restricted_registry(default_registry(), investigator).names()


def test_complete_task_schema_has_no_refs_once_nested_in_the_tool_envelope():
    import json

    from acode.agent.subagents.runner import CompleteTask, InvestigationReport
    from acode.llm.structured import tool_envelope_schema

    params = tool_envelope_schema([CompleteTask(InvestigationReport).spec()])["anyOf"][0]["properties"][
        "arguments"
    ]
    text = json.dumps(params)
    assert "$ref" not in text and "$defs" not in text
    location = params["properties"]["relevant_locations"]["items"]
    assert location["required"] == ["file", "reason"]
