"""/agent:start, /agent:run, /agent:status and custom commands inside a chat session (scripted model)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.cli import slash
from acode.config.settings import Settings
from acode.llm.scripted import ScriptedModel


def chat_for(root: Path, steps: list) -> tuple[slash.ChatContext, Console, ScriptedModel]:
    model = ScriptedModel(steps)
    session = build_session(Settings(), root, SessionOptions(approval_mode="yolo"), model=model)
    console = Console(record=True, width=200)
    slash.load_modules()
    return slash.ChatContext(session, console, session.send), console, model


def test_agent_queue_from_the_chat(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".acode").mkdir(parents=True)
    monkeypatch.chdir(root)
    chat, console, _ = chat_for(root, [
        {"tool": "write_file", "arguments": {"file_path": "greet.py", "content": "print('hi')\n"}},
        {"tool": "complete_task", "arguments": {"result": "greet.py"}},
    ])
    try:
        assert slash.dispatch(chat, "/agent:start coder-agent create greet.py")
        out = console.export_text()
        task_id = out.split()[1]
        assert f"Task {task_id} created for agent 'coder-agent' and is now pending." in out
        slash.dispatch(chat, "/agent:start nobody x")
        assert "unknown agent 'nobody'" in console.export_text()
        slash.dispatch(chat, "/agent:run")
        assert f"Orchestrator finished task {task_id}. (complete)" in console.export_text()
        assert (root / ".acode/agents/workspace/greet.py").read_text() == "print('hi')\n"
        slash.dispatch(chat, "/agent:status")
        text = console.export_text()
        assert "Task ID" in text and "complete" in text
        slash.dispatch(chat, "/agent:run")
        assert "No pending agent tasks found." in console.export_text()
    finally:
        chat.session.close()


def test_custom_command_expands_and_is_sent_to_the_agent(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    commands = root / ".acode" / "commands" / "git"
    commands.mkdir(parents=True)
    (commands / "explain.toml").write_text(
        'description = "Explain a file"\nprompt = "Explain @{notes.txt} for {{args}}"'
    )
    (root / "notes.txt").write_text("NOTES")
    monkeypatch.chdir(root)
    chat, console, model = chat_for(root, ["It says NOTES."])
    try:
        assert slash.dispatch(chat, "/git:explain beginners")
        assert model.calls[0]["messages"][-1].content == "Explain NOTES for beginners"
        slash.dispatch(chat, "/commands")
        listing = console.export_text()
        assert "/git:explain" in listing and "Explain a file" in listing
        assert not slash.dispatch(chat, "/git:nothing")
    finally:
        chat.session.close()
