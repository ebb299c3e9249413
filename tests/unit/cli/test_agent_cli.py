"""The agent CLI end to end with the scripted backend: ``acode -p --json``, a kill mid-step then resume,
and the interactive chat driven through a real terminal (pexpect)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pexpect
import pytest
from tests.helpers.agent_cli import ACODE, PROMPT, cli_env, run_cli, spawn_chat, write_script

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore


def test_one_shot_json_prints_the_trajectory(git_repo):
    script = write_script(
        git_repo,
        [
            {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}},
            {"tool": "run_shell_command", "arguments": {"command": f"{sys.executable} hello.py"}},
            "Created hello.py and ran it: it prints hello.",
        ],
    )
    out = run_cli(git_repo, script, "-p", "create hello.py and run it", "--approval-mode", "yolo", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["stop_reason"] == "answer" and data["answer"].startswith("Created hello.py")
    assert data["turns"] == 3 and set(data["tokens"]) >= {"prompt_tokens", "completion_tokens"}
    tools = [s for s in data["trajectory"] if s["type"] == "tool"]
    assert [t["name"] for t in tools] == ["write_file", "run_shell_command"]
    assert "hello" in tools[1]["output"] and all(t["ok"] for t in tools)
    assert all({"seconds", "usage", "turn"} <= set(s) for s in data["trajectory"] if s["type"] == "model")
    assert (git_repo / "hello.py").read_text() == "print('hello')\n"
    assert "write_file" in out.stderr  # progress on stderr, stdout is only JSON


def test_one_shot_plain_prints_the_answer_and_denies_in_default_mode(git_repo):
    script = write_script(
        git_repo,
        [
            {"tool": "write_file", "arguments": {"file_path": "x.py", "content": "1"}},
            "I was not allowed to write x.py.",
        ],
    )
    out = run_cli(git_repo, script, "-p", "write x.py")
    assert out.returncode == 1  # the requested change was not made (issue 28 item 2)
    assert out.stdout == "I was not allowed to write x.py.\n"
    assert "non-interactive" in out.stderr and not (git_repo / "x.py").exists()


def test_one_shot_failure_exit_code_and_resume_hint(git_repo):
    script = write_script(git_repo, [{"tool": "nope"}] * 3)
    out = run_cli(git_repo, script, "-p", "go")
    assert out.returncode == 1 and "format_errors" in out.stderr and "acode -r" in out.stderr


def test_bad_approval_mode_is_a_usage_error(git_repo):
    script = write_script(git_repo, ["x"])
    out = run_cli(git_repo, script, "-p", "go", "--approval-mode", "fast")
    assert out.returncode == 2 and "ACODE-" in out.stderr and "Traceback" not in out.stderr


def wait_for(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError("condition not reached in time")


def stored_roles(repo: Path) -> list[str]:
    db = ProjectPaths(repo).db_file
    if not db.exists():
        return []
    store = SessionStore(db)
    try:
        sessions = store.list(limit=1)
        return [m.role for m in store.load_messages(sessions[0].id)] if sessions else []
    finally:
        store.close()


@pytest.mark.parametrize("killed_during", ["model", "tool"])
def test_a_kill_loses_at_most_the_step_in_flight(git_repo, killed_during):
    first_step = {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "saved"}}
    in_flight = (
        {"sleep": 60, "text": "never seen"}
        if killed_during == "model"
        else {"tool": "run_shell_command", "arguments": {"command": "sleep 60"}}
    )
    script = write_script(git_repo, [first_step, in_flight])
    proc = subprocess.Popen(
        [*ACODE, "-p", "write a.txt then wait", "--backend", "scripted", "--approval-mode", "yolo"],
        cwd=git_repo,
        env=cli_env(script),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        expected = ["system", "user", "assistant", "tool"] + (
            ["assistant"] if killed_during == "tool" else []
        )
        wait_for(lambda: stored_roles(git_repo) == expected)
        time.sleep(0.3)  # the in-flight step is now running
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert (git_repo / "a.txt").read_text() == "saved"

    resume_script = write_script(git_repo, ["Resumed: a.txt is written."])
    out = run_cli(git_repo, resume_script, "-r", "latest", "-p", "are you done?", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["answer"] == "Resumed: a.txt is written."
    roles = stored_roles(git_repo)
    assert roles[:4] == ["system", "user", "assistant", "tool"]
    if killed_during == "tool":  # the call that was running gets an "interrupted" result
        assert roles[4:] == ["assistant", "tool", "user", "assistant"]
    else:
        assert roles[4:] == ["user", "assistant"]


def test_interactive_chat_with_approval_and_slash_commands(git_repo):
    script = write_script(
        git_repo,
        [
            {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "from the chat"}},
            "I wrote **a.txt**.",
            {"tool": "run_shell_command", "arguments": {"command": "ls"}},
            "Listed the files.",
        ],
    )
    child = spawn_chat(git_repo, script)
    child.sendline("please write a.txt")
    child.expect("allow\\?")
    child.sendline("y")
    child.expect("I wrote")
    child.expect(PROMPT)
    assert (git_repo / "a.txt").read_text() == "from the chat"

    child.sendline("/tools")
    child.expect("run_shell_command")
    child.expect(PROMPT)
    child.sendline("/mode yolo")
    child.expect(r"approval mode: \S*yolo")
    child.expect(PROMPT)
    child.sendline("list the files")  # yolo: no question this time
    child.expect("Listed the files")
    child.expect(PROMPT)
    child.sendline("/nonsense")
    child.expect("unknown command")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    store = SessionStore(ProjectPaths(git_repo).db_file)
    info = store.list()[0]
    assert info.approval_mode == "yolo" and info.title == "please write a.txt"
    assert (git_repo / ".acode" / "chat_history").read_text().count("please write a.txt") == 1


@pytest.mark.slow
def test_ctrl_c_in_the_chat_cancels_the_step_and_keeps_the_session(git_repo):
    started = git_repo / "slow-step-started"
    script = write_script(git_repo, [{"sleep": 30, "text": "too slow", "started": str(started)},
                                     "Second answer."])
    child = spawn_chat(git_repo, script)
    child.sendline("do something slow")
    child.expect(r"thinking \(turn 1\)")
    # the model call itself has begun: "thinking" alone lost the race under load (the Ctrl-C came before the
    # call took its step, and the next turn slept instead)
    wait_for(started.exists, timeout=60)
    child.sendintr()
    child.expect("interrupted")
    child.expect(PROMPT)
    child.sendline("try again")
    child.expect("Second answer")
    child.expect(PROMPT)
    child.sendline("/resume")
    child.expect("\\*")  # the current session is marked in the list
    child.expect(PROMPT)
    first_id = SessionStore(ProjectPaths(git_repo).db_file).list()[0].id
    child.sendline("/clear")
    child.expect("new session")
    child.expect(PROMPT)
    child.sendline(f"/resume {first_id}")
    child.expect(f"resumed session {first_id}")
    child.expect(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    store = SessionStore(ProjectPaths(git_repo).db_file)
    assert [m.role for m in store.load_messages(first_id)] == ["system", "user", "user", "assistant"]
    assert len(store.list()) == 2  # /clear started a second one


def test_enabled_extensions_add_context_and_remove_tools(git_repo):
    ext = git_repo / ".acode" / "extensions" / "house"
    ext.mkdir(parents=True)
    (ext / "acode-extension.json").write_text(
        json.dumps({"name": "house", "contextFileName": "HOUSE.md", "excludeTools": ["run_shell_command"]})
    )
    (ext / "HOUSE.md").write_text("House rule: tabs are forbidden.")
    script = write_script(git_repo, [{"tool": "run_shell_command", "arguments": {"command": "ls"}}, "ok"])
    out = run_cli(git_repo, script, "-p", "list files", "--approval-mode", "yolo", "--json")
    tool = next(s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool")
    assert tool["decision"] == "invalid" and "Unknown tool" in tool["output"]
    store = SessionStore(ProjectPaths(git_repo).db_file)
    system = store.load_messages(store.list()[0].id)[0].content
    assert "House rule: tabs are forbidden." in system
    out_none = run_cli(
        git_repo, script, "-p", "list files", "-e", "none", "--approval-mode", "yolo", "--json"
    )
    assert json.loads(out_none.stdout)["trajectory"][1]["decision"] == "allowed"


def test_a_piped_prompt_runs_once_and_an_empty_one_is_a_usage_error(git_repo):
    script = write_script(git_repo, ["Piped answer."])
    env = cli_env(script)
    piped = subprocess.run(
        [*ACODE, "--backend", "scripted"],
        input="what is this?",
        cwd=git_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert piped.returncode == 0 and piped.stdout == "Piped answer.\n"
    empty = subprocess.run(
        [*ACODE, "--backend", "scripted"],
        input="",
        cwd=git_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert empty.returncode == 2 and "ACODE-AGENT-002" in empty.stderr
