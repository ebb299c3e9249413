"""The self-control middlewares end to end: a real AgentSession (loop, approval, tools, store, the
factory's middlewares) driven by a scripted model."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from rich.console import Console

from acode.agent.session.agent_session import AgentSession, SessionOptions
from acode.agent.session.builder import build_session
from acode.cli import slash
from acode.config.settings import Settings
from acode.llm.scripted import ScriptedModel

SNAPSHOT = {
    "overall_goal": "Read the 30 data files and write a report",
    "task_state": [
        {"status": "DONE", "item": "read the first files"},
        {"status": "TODO", "item": "write report.md"},
    ],
}


def open_session(
    ws: Path, steps, *, config: dict | None = None, context_window: int = 8192, **options
) -> AgentSession:
    settings = Settings.model_validate(config or {})
    model = ScriptedModel(steps, context_window=context_window)
    opts = SessionOptions(approval_mode=options.pop("approval_mode", "yolo"), **options)
    return build_session(settings, ws, opts, model=model)


def names(session: AgentSession) -> list[str]:
    return [m.name for m in session.loop.middlewares]


def test_factory_builds_the_self_control_middlewares(tmp_path):
    session = open_session(tmp_path, [], interactive=True)
    assert names(session) == ["plan_mode", "compression", "loop_detection", "next_speaker", "checkpoints"]
    assert "enter_plan_mode" in session.loop.registry and "exit_plan_mode" in session.loop.registry
    session.close()
    one_shot = open_session(tmp_path, [])  # nobody to approve a plan: the plan tools are not offered
    assert "enter_plan_mode" not in one_shot.loop.registry and "exit_plan_mode" not in one_shot.loop.registry
    one_shot.close()
    planning = open_session(tmp_path, [], approval_mode="plan")  # the plan is the answer
    assert "enter_plan_mode" not in planning.loop.registry and "exit_plan_mode" in planning.loop.registry
    planning.close()
    off = {
        "loop_detection": {"enabled": False},
        "compression": {"enabled": False},
        "checkpoints": {"enabled": False},
    }
    session = open_session(tmp_path, [], config=off)
    assert names(session) == ["plan_mode", "next_speaker"]
    session.close()
    session = open_session(tmp_path, [], no_loop_detection=True)
    assert "loop_detection" not in names(session)
    session.close()


def test_hook_denies_rm_rf_and_the_model_sees_the_reason(tmp_path):
    hook = tmp_path / "guard.py"
    hook.write_text(
        "import json, sys\n"
        "data = json.load(sys.stdin)\n"
        "if 'rm -rf' in data['tool_input'].get('command', ''):\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'destructive command refused by policy'}))\n"
    )
    (tmp_path / "build").mkdir()
    config = {
        "hooks": {
            "BeforeTool": [
                {"matcher": "run_shell_command", "hooks": [{"command": f"{sys.executable} {hook}"}]}
            ]
        }
    }
    steps = [
        {"tool": "run_shell_command", "arguments": {"command": "rm -rf build"}},
        "I could not delete build: the policy refused.",
    ]
    session = open_session(tmp_path, steps, config=config)
    result = session.send("clean the build folder")
    session.close()
    assert (tmp_path / "build").is_dir()
    seen_by_model = session.loop.model.calls[1]["messages"][-1]
    assert seen_by_model.role == "tool" and "destructive command refused by policy" in seen_by_model.content
    assert result.trajectory[1].decision == "denied"


def test_genuine_repetition_is_nudged_then_stopped(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    same = {"tool": "read_file", "arguments": {"file_path": "a.py"}}
    session = open_session(tmp_path, [same] * 7)
    result = session.send("what is x?")
    session.close()
    assert result.stop_reason == "loop_detected"
    nudges = [m for m in session.state.history if m.role == "user" and "repeating yourself" in m.content]
    assert len(nudges) == 1
    assert result.turns == 6  # nudged after the 5th call, stopped at the 6th


def test_no_loop_detection_flag_lets_repetition_run(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    same = {"tool": "read_file", "arguments": {"file_path": "a.py"}}
    session = open_session(tmp_path, [same] * 7 + ["x is 1"], no_loop_detection=True)
    result = session.send("what is x?")
    session.close()
    assert result.stop_reason == "answer" and result.answer == "x is 1"


def test_batch_edit_of_twelve_files_runs_to_the_end(tmp_path):
    for i in range(12):
        (tmp_path / f"m{i}.py").write_text("import os\n")
    edits = [
        {
            "tool": "replace",
            "arguments": {
                "file_path": f"m{i}.py",
                "old_string": "import os",
                "new_string": "import os\nimport sys",
            },
        }
        for i in range(12)
    ]
    session = open_session(tmp_path, [*edits, "Added import sys to all 12 modules."])
    result = session.send("add import sys under import os in every module")
    session.close()
    assert result.stop_reason == "answer"
    assert all((tmp_path / f"m{i}.py").read_text() == "import os\nimport sys\n" for i in range(12))


def test_next_speaker_sends_please_continue(tmp_path):
    steps = [
        "I looked at the request. Next, I will create hello.py.",
        {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}},
        "Created hello.py.",
    ]
    session = open_session(tmp_path, steps)
    result = session.send("create hello.py")
    session.close()
    assert result.answer == "Created hello.py." and (tmp_path / "hello.py").is_file()
    assert any(m.role == "user" and m.content == "Please continue." for m in session.state.history)


def test_thirty_step_task_on_8k_window_never_overflows(tmp_path):
    for i in range(30):
        (tmp_path / f"data{i:02d}.txt").write_text(f"record {i}: " + "value " * 1200 + "\n")
    actions = iter(
        [{"tool": "read_file", "arguments": {"file_path": f"data{i:02d}.txt"}} for i in range(30)]
        + [
            {
                "tool": "write_file",
                "arguments": {"file_path": "report.md", "content": "# Report\n30 files read.\n"},
            },
            "Wrote report.md.",
        ]
    )

    def respond(messages, tools, schema):
        if schema is None:
            return next(actions)
        fields = schema.get("properties", {})
        if "overall_goal" in fields:
            return {"json": SNAPSHOT}
        if "confidence" in fields:  # the occasional loop check after 30 turns
            return {"json": {"reasoning": "reads a different file each turn", "confidence": 0.1}}
        return {"json": {"reasoning": "finished", "next_speaker": "user"}}

    session = open_session(tmp_path, [respond] * 60, context_window=8192)
    model = session.loop.model
    compression = next(m for m in session.loop.middlewares if m.name == "compression")
    result = session.send("Read every data file, then write report.md saying how many you read.")
    session.close()

    assert result.stop_reason == "answer" and (tmp_path / "report.md").is_file()
    agent_calls = [c for c in model.calls if c["schema"] is None]
    assert len(agent_calls) == 32
    prompt_sizes = [
        sum(model.count_tokens(m.content) + 4 for m in c["messages"]) + compression.fixed_tokens
        for c in agent_calls
    ]
    assert max(prompt_sizes) < 8192 - 1024  # always room for the answer's max_tokens
    statuses = [r.status for r in compression.reports]
    assert "compressed" in statuses or "masked" in statuses
    summaries = [c for c in model.calls if c["schema"] and "overall_goal" in c["schema"]["properties"]]
    assert len(summaries) == statuses.count("compressed")
    assert len([c for c in model.calls if c["schema"] and "confidence" in c["schema"]["properties"]]) == 1


def chat_for(session: AgentSession) -> tuple[slash.ChatContext, Console]:
    console = Console(record=True, width=200)
    slash.load_modules()
    return slash.ChatContext(session, console, session.send), console


def test_restore_slash_command_undoes_edits(tmp_path):
    (tmp_path / "a.py").write_text("old\n")
    steps = [
        {"tool": "write_file", "arguments": {"file_path": "a.py", "content": "new\n"}},
        {"tool": "write_file", "arguments": {"file_path": "b.py", "content": "created\n"}},
        "Done.",
    ]
    session = open_session(tmp_path, steps, approval_mode="auto_edit")
    session.send("edit")
    chat, console = chat_for(session)
    assert slash.dispatch(chat, "/restore 2")
    session.close()
    assert (tmp_path / "a.py").read_text() == "old\n" and not (tmp_path / "b.py").exists()
    assert "undid write_file" in console.export_text()
    assert "undid your last 2 edit(s)" in session.state.history[-2].content


def test_compress_and_plan_slash_commands(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" * 50)
    reads = [{"tool": "read_file", "arguments": {"file_path": "a.py", "start_line": i}} for i in range(1, 5)]
    session = open_session(tmp_path, [*reads, "x is 1", {"json": SNAPSHOT}])
    session.send("what is x?")
    chat, console = chat_for(session)
    slash.dispatch(chat, "/compress")
    assert "compression compressed" in console.export_text()
    assert "<state_snapshot>" in session.state.history[1].content

    slash.dispatch(chat, "/plan")
    assert session.state.approval_mode == "plan"
    slash.dispatch(chat, "/plan off")
    assert session.state.approval_mode == "yolo"
    session.close()


def test_before_agent_hook_adds_context_to_the_prompt_and_after_agent_can_insist(tmp_path):
    add = tmp_path / "add.py"
    add.write_text(
        "import json\nprint(json.dumps({'hookSpecificOutput': {'additionalContext': 'Current branch: "
        "feature-x'}}))\n"
    )
    insist = tmp_path / "insist.py"
    insist.write_text(
        "import json, sys, os\n"
        "data = json.load(sys.stdin)\n"
        "if not os.path.exists('checked'):\n"
        "    open('checked', 'w').close()\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'run the tests before finishing'}))\n"
    )
    config = {
        "hooks": {
            "BeforeAgent": [{"hooks": [{"command": f"{sys.executable} {add}"}]}],
            "AfterAgent": [{"hooks": [{"command": f"{sys.executable} {insist}"}]}],
        }
    }
    session = open_session(tmp_path, ["All done.", "Tests pass; all done."], config=config)
    result = session.send("summarise the branch")
    session.close()
    first_prompt = session.loop.model.calls[0]["messages"][-1].content
    assert first_prompt.startswith("summarise the branch") and "Current branch: feature-x" in first_prompt
    assert (
        "Not done yet: run the tests before finishing" in session.loop.model.calls[1]["messages"][-1].content
    )
    assert result.answer == "Tests pass; all done."


def test_pre_compress_hook_is_told_about_compression(tmp_path):
    seen = tmp_path / "seen.json"
    hook = tmp_path / "pre.py"
    hook.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n")
    config = {"hooks": {"PreCompress": [{"hooks": [{"command": f"{sys.executable} {hook}"}]}]}}
    (tmp_path / "a.py").write_text("x = 1\n" * 50)
    reads = [{"tool": "read_file", "arguments": {"file_path": "a.py", "start_line": i}} for i in range(1, 4)]
    session = open_session(tmp_path, [*reads, "x is 1", {"json": SNAPSHOT}], config=config)
    session.send("what is x?")
    chat, _ = chat_for(session)
    slash.dispatch(chat, "/compress")
    session.close()
    payload = json.loads(seen.read_text())
    assert payload["hook_event_name"] == "PreCompress" and payload["trigger"] == "manual"
    assert payload["token_count"] > 0 and payload["session_id"] == session.id
