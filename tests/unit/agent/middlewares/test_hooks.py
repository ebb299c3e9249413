"""Hooks: commands with JSON on stdin/stdout, exit code 2 blocks, timeouts kill the process group."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.middlewares.hook_runner import HookRunner
from acode.agent.middlewares.hooks import HooksMiddleware, HookStopped
from acode.config.hooks import HooksSettings
from acode.llm.types import Message, ToolCall
from acode.tools.base import ToolResult

PY = sys.executable


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text("import json, sys, os, time\ndata = json.load(sys.stdin)\n" + body)
    return f"{PY} {path}"


DENY_RM = """
cmd = data.get("tool_input", {}).get("command", "")
if "rm -rf" in cmd:
    sys.stderr.write("rm -rf is not allowed in this project")
    sys.exit(2)
"""


def middleware(tmp_path: Path, config: dict, notes: list[str] | None = None) -> HooksMiddleware:
    settings = HooksSettings.model_validate(config)
    sink = notes.append if notes is not None else None
    return HooksMiddleware(HookRunner(settings, session_id="sess-1", cwd=tmp_path, notify=sink))


def state(tmp_path: Path) -> AgentState:
    return AgentState(
        session_id="sess-1",
        workspace=tmp_path,
        history=[Message.system("sys"), Message.user("go")],
        approval_mode="default",
    )


def test_exit_code_two_denies_rm_rf_with_stderr_reason(tmp_path):
    hooks = middleware(
        tmp_path,
        {
            "BeforeTool": [
                {"matcher": "run_shell_command", "hooks": [{"command": script(tmp_path, "deny.py", DENY_RM)}]}
            ]
        },
    )
    st = state(tmp_path)
    decision = hooks.before_tool(
        st, ToolCall(name="run_shell_command", arguments={"command": "rm -rf build"})
    )
    assert decision is not None and decision.action == "deny"
    assert "rm -rf is not allowed in this project" in decision.reason
    assert hooks.before_tool(st, ToolCall(name="run_shell_command", arguments={"command": "ls"})) is None


def test_matcher_is_a_regex_on_the_tool_name(tmp_path):
    log = tmp_path / "seen.jsonl"
    body = f"open({str(log)!r}, 'a').write(json.dumps(data) + '\\n')\n"
    hooks = middleware(
        tmp_path,
        {
            "BeforeTool": [
                {
                    "matcher": "^(write_file|replace)$",
                    "hooks": [{"command": script(tmp_path, "log.py", body)}],
                }
            ]
        },
    )
    st = state(tmp_path)
    hooks.before_tool(st, ToolCall(name="read_file", arguments={"file_path": "a"}))
    hooks.before_tool(st, ToolCall(name="replace", arguments={"file_path": "b"}))
    seen = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(seen) == 1
    assert seen[0]["tool_name"] == "replace" and seen[0]["tool_input"] == {"file_path": "b"}
    assert seen[0]["hook_event_name"] == "BeforeTool"
    assert seen[0]["session_id"] == "sess-1" and seen[0]["cwd"] == str(tmp_path)
    assert "timestamp" in seen[0]


def test_json_decision_rewrite_and_any_block_wins(tmp_path):
    rewrite = script(
        tmp_path,
        "rw.py",
        "print(json.dumps({'hookSpecificOutput': {'tool_input': {'command': 'ls -la'}}}))\n",
    )
    allow = script(tmp_path, "allow.py", "print(json.dumps({'decision': 'allow'}))\n")
    deny = script(
        tmp_path, "deny.py", "print(json.dumps({'decision': 'deny', 'reason': 'no shell today'}))\n"
    )
    hooks = middleware(tmp_path, {"BeforeTool": [{"hooks": [{"command": rewrite}, {"command": allow}]}]})
    decision = hooks.before_tool(
        state(tmp_path), ToolCall(name="run_shell_command", arguments={"command": "ls"})
    )
    assert decision is not None and decision.action == "allow"
    assert decision.rewritten_arguments == {"command": "ls -la"}

    hooks = middleware(
        tmp_path, {"BeforeTool": [{"hooks": [{"command": allow}]}, {"hooks": [{"command": deny}]}]}
    )
    decision = hooks.before_tool(
        state(tmp_path), ToolCall(name="run_shell_command", arguments={"command": "ls"})
    )
    assert decision is not None and decision.action == "deny" and "no shell today" in decision.reason


def test_other_exit_codes_only_warn(tmp_path):
    notes: list[str] = []
    failing = script(tmp_path, "fail.py", "sys.stderr.write('boom'); sys.exit(1)\n")
    hooks = middleware(tmp_path, {"BeforeTool": [{"hooks": [{"command": failing, "name": "flaky"}]}]}, notes)
    assert hooks.before_tool(state(tmp_path), ToolCall(name="read_file")) is None
    assert any("flaky" in n and "exited with 1" in n and "boom" in n for n in notes)


def test_hanging_hook_is_killed_with_its_children_and_the_session_goes_on(tmp_path):
    notes: list[str] = []
    pid_file = tmp_path / "child.pid"
    body = (
        "import subprocess\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    hanging = script(tmp_path, "hang.py", body)
    hooks = middleware(
        tmp_path, {"BeforeTool": [{"hooks": [{"command": hanging, "timeout": 1, "name": "slow"}]}]}, notes
    )
    decision = hooks.before_tool(state(tmp_path), ToolCall(name="read_file"))
    assert decision is None
    assert any("slow" in n and "timed out" in n for n in notes)
    child = int(pid_file.read_text())
    for _ in range(50):  # the kill is asynchronous; give the kernel a moment to reap
        if not _alive(child):
            break
        time.sleep(0.1)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as handle:  # a zombie is dead for our purpose
        return handle.read().split()[2] != "Z"


def test_after_tool_block_and_context(tmp_path):
    ctx = script(
        tmp_path,
        "ctx.py",
        "print(json.dumps({'hookSpecificOutput': {'additionalContext': 'lint: 0 issues'}}))\n",
    )
    hooks = middleware(tmp_path, {"AfterTool": [{"matcher": "write_file", "hooks": [{"command": ctx}]}]})
    result = hooks.after_tool(state(tmp_path), ToolCall(name="write_file"), ToolResult(output="wrote a.py"))
    assert result is not None and result.output.endswith("lint: 0 issues")

    block = script(tmp_path, "block.py", "sys.stderr.write('secret in output'); sys.exit(2)\n")
    hooks = middleware(tmp_path, {"AfterTool": [{"hooks": [{"command": block}]}]})
    result = hooks.after_tool(state(tmp_path), ToolCall(name="read_file"), ToolResult(output="KEY=abc"))
    assert (
        result is not None and "secret in output" in (result.error or "") and "KEY" not in result.for_model()
    )


def test_continue_false_stops_the_session(tmp_path):
    stop = script(
        tmp_path, "stop.py", "print(json.dumps({'continue': False, 'stopReason': 'budget spent'}))\n"
    )
    hooks = middleware(tmp_path, {"BeforeModel": [{"hooks": [{"command": stop}]}]})
    with pytest.raises(HookStopped) as err:
        hooks.before_model(state(tmp_path))
    assert "budget spent" in err.value.message and err.value.reason == "hook_stop"


def test_session_start_context_prompt_context_and_after_agent_insists(tmp_path):
    add = script(
        tmp_path,
        "add.py",
        "print(json.dumps({'hookSpecificOutput': {'additionalContext': 'Branch: ' + "
        "data['hook_event_name']}}))\n",
    )
    insist = script(
        tmp_path, "insist.py", "print(json.dumps({'decision': 'block', 'reason': 'tests still fail'}))\n"
    )
    hooks = middleware(
        tmp_path,
        {
            "SessionStart": [{"hooks": [{"command": add}]}],
            "BeforeAgent": [{"hooks": [{"command": add}]}],
            "AfterAgent": [{"hooks": [{"command": insist}]}],
        },
    )
    st = state(tmp_path)
    hooks.on_session_start(st)
    assert st.history[0].content.endswith("Branch: SessionStart")
    assert hooks.on_user_prompt(st, "fix it") == "fix it\n\nBranch: BeforeAgent"
    assert hooks.on_final_answer(st, "done") == "Not done yet: tests still fail"


def test_invalid_matcher_is_a_config_error():
    with pytest.raises(ValueError, match="not a valid regular expression"):
        HooksSettings.model_validate({"BeforeTool": [{"matcher": "(", "hooks": [{"command": "true"}]}]})


def test_no_hooks_configured_costs_no_process(tmp_path):
    hooks = middleware(tmp_path, {})
    st = state(tmp_path)
    assert hooks.before_tool(st, ToolCall(name="read_file")) is None
    assert hooks.runner.has("BeforeTool", "read_file") is False
