"""Sessions: recorded as they happen, listed, resumed; a rewritten history becomes a new epoch; context
files reach the system prompt."""

from __future__ import annotations

import json

from tests.helpers.agent_fakes import registry

from acode.agent.loop.middleware import Middleware
from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.agent.session.context_files import find_context_files
from acode.config import Settings
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Message
from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

# The self-control middlewares (next-speaker check, compression, ...) have their own tests and would
# consume scripted answers here; these tests are about recording and resuming.
QUIET = {
    name: {"enabled": False} for name in ("next_speaker", "compression", "loop_detection", "checkpoints")
}


def open_session(root, model, **options):
    settings = Settings.model_validate(QUIET)
    return build_session(settings, root, SessionOptions(**options), model=model, registry=registry())


def test_every_message_is_stored_as_it_is_produced(git_repo):
    seen_in_store = []

    def check_store(messages, tools, schema):
        # while the second model call runs, the first tool result is already on disk
        store = SessionStore(ProjectPaths(git_repo).db_file)
        seen_in_store.append([m.role for m in store.load_messages(store.list()[0].id)])
        return "done"

    model = ScriptedModel(
        [{"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}}, check_store]
    )
    session = open_session(git_repo, model, approval_mode="yolo")
    result = session.send("write a.txt")
    session.close()

    assert result.ok
    assert seen_in_store == [["system", "user", "assistant", "tool"]]
    store = SessionStore(ProjectPaths(git_repo).db_file)
    info = store.get(result.session_id)
    assert info.status == "answer" and info.turns == 2 and info.title == "write a.txt"
    assert [m.role for m in store.load_messages(info.id)] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    kinds = [e["kind"] for e in store.events(info.id)]
    assert kinds == ["model", "tool", "model", "stop"]
    tool_event = store.events(info.id, "tool")[0]
    assert tool_event["name"] == "write_file" and tool_event["arguments"]["file_path"] == "a.txt"


def test_resume_latest_continues_the_conversation(git_repo):
    first = open_session(git_repo, ScriptedModel(["The secret is 42."]))
    first_id = first.send("remember 42").session_id
    first.close()

    model = ScriptedModel(["You said 42."])
    second = open_session(git_repo, model, resume="latest")
    assert second.id == first_id
    assert second.send("what did I say?").answer == "You said 42."
    second.close()
    prompt = [m.content for m in model.calls[0]["messages"]]
    assert prompt[1:] == ["remember 42", "The secret is 42.", "what did I say?"]
    store = SessionStore(ProjectPaths(git_repo).db_file)
    assert len(store.list()) == 1 and store.get(first_id).turns == 2
    assert store.resolve(first_id[:12]).id == first_id


def test_resume_after_a_kill_mid_tool_closes_the_open_call(git_repo):
    store = SessionStore(ProjectPaths(git_repo).db_file)
    session_id = store.create(git_repo)
    call_message = Message.assistant("", [])
    call_message.tool_calls.append(
        __import__("acode.llm.types", fromlist=["ToolCall"]).ToolCall(name="read_file")
    )
    store.append_messages(session_id, 0, 0, [Message.system("s"), Message.user("go"), call_message])

    model = ScriptedModel(["recovered"])
    session = open_session(git_repo, model, resume=session_id)
    assert session.send("continue").answer == "recovered"
    roles = [m.role for m in model.calls[0]["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "user"]
    assert "interrupted" in model.calls[0]["messages"][3].content
    session.close()


class HalveHistory(Middleware):
    """Stands in for compression: replaces the history with a shorter one."""

    def before_model(self, state):
        if len(state.history) > 4:
            state.history[:] = [state.history[0], Message.user("summary of earlier work"), state.history[-1]]


def test_a_rewritten_history_is_stored_as_a_new_epoch(git_repo):
    model = ScriptedModel(["one", "two", "three"])
    session = open_session(git_repo, model)
    session.loop.middlewares.append(HalveHistory())
    for prompt in ("a", "b", "c"):
        session.send(prompt)
    session.close()
    store = SessionStore(ProjectPaths(git_repo).db_file)
    info = store.get(session.id)
    assert info.epoch == 1
    contents = [m.content for m in store.load_messages(info.id)]
    assert contents[1:] == ["summary of earlier work", "c", "three"]
    assert store.events(info.id, "history_rewritten")[0]["epoch"] == 1


def test_mode_switch_rebuilds_the_system_prompt(git_repo):
    session = open_session(git_repo, ScriptedModel([]))
    assert "Approval mode: default" in session.state.history[0].content
    session.set_mode("auto_edit")
    assert "Approval mode: auto_edit" in session.state.history[0].content
    assert SessionStore(ProjectPaths(git_repo).db_file).get(session.id).approval_mode == "auto_edit"
    session.close()


def test_context_files_from_the_root_upwards_and_the_user_folder(tmp_path, monkeypatch):
    user = tmp_path / "user-config"
    user.mkdir()
    (user / "ACODE.md").write_text("Answer briefly.")
    outer = tmp_path / "mono"
    root = outer / "pkg"
    root.mkdir(parents=True)
    (outer / "AGENTS.md").write_text("Monorepo rule.")
    (root / "ACODE.md").write_text("Use pytest -q." + "x" * 5000)
    monkeypatch.setenv("ACODE_CONFIG_HOME", str(user))

    files = find_context_files(root)
    assert [f.text[:14] for f in files] == ["Answer briefly", "Monorepo rule.", "Use pytest -q."]
    assert files[-1].truncated and not files[0].truncated

    session = open_session(root, ScriptedModel([]))
    prompt = session.state.history[0].content
    assert prompt.index("Answer briefly") < prompt.index("Monorepo rule") < prompt.index("Use pytest -q.")
    assert "read_file, write_file, run_shell_command" in prompt
    session.close()


def test_sessions_list_json(git_repo, monkeypatch):
    from typer.testing import CliRunner

    from acode.cli.main import app

    session = open_session(git_repo, ScriptedModel(["hi"]))
    session.send("hello there")
    session.close()
    monkeypatch.chdir(git_repo)
    out = CliRunner().invoke(app, ["sessions", "list", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert rows[0]["id"] == session.id and rows[0]["title"] == "hello there" and rows[0]["messages"] == 3
    shown = CliRunner().invoke(app, ["sessions", "show", "latest", "--json"])
    assert [m["role"] for m in json.loads(shown.stdout)["messages"]] == ["system", "user", "assistant"]
    missing = CliRunner().invoke(app, ["sessions", "show", "nope"])
    assert missing.exit_code != 0


def test_session_built_registry_offers_reviewer_and_subagents_when_turned_on(git_repo):
    settings = Settings.model_validate({**QUIET, "agent": {"reviewer_tool": True, "subagents": True}})
    session = build_session(settings, git_repo, SessionOptions(), model=ScriptedModel([]))
    try:
        names = session.loop.registry.names()
        assert "reviewer" in names and "invoke_agent" in names
        assert "reviewer" in session.system_prompt("default")  # told to ask for a second opinion
    finally:
        session.close()

    settings = Settings.model_validate(QUIET)  # the default: both off
    session = build_session(settings, git_repo, SessionOptions(), model=ScriptedModel([]))
    try:
        assert not {"reviewer", "invoke_agent"} & set(session.loop.registry.names())
    finally:
        session.close()


def test_validation_nudge_asks_once_to_run_something_after_edits(git_repo):
    model = ScriptedModel(
        [
            {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}},
            "Created hello.py and ran it.",  # claims a run that never happened
            {"tool": "run_shell_command", "arguments": {"command": "python hello.py"}},
            "Ran hello.py: it printed hello.",
        ]
    )
    settings = Settings.model_validate(
        {**QUIET, "agent": {"approval_mode": "yolo", "nudge_validation": True}}
    )
    session = build_session(settings, git_repo, SessionOptions(), model=model)
    try:
        result = session.send("create hello.py that prints hello, then run it")
    finally:
        session.close()
    assert result.answer == "Ran hello.py: it printed hello."
    nudges = [
        m.content for m in session.state.history if m.role == "user" and "have not run anything" in m.content
    ]
    assert len(nudges) == 1 and "hello.py" in nudges[0]


def test_validation_nudge_stays_quiet_when_a_command_could_not_run(git_repo):
    model = ScriptedModel(
        [
            {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "x\n"}},
            "Wrote a.txt.",
        ]
    )
    settings = Settings.model_validate(
        {**QUIET, "agent": {"approval_mode": "auto_edit", "nudge_validation": True}}
    )
    session = build_session(settings, git_repo, SessionOptions(), model=model)  # non-interactive
    try:
        assert session.send("write a.txt").answer == "Wrote a.txt."
    finally:
        session.close()
