"""The everyday habits with the real embedded 0.5B model: ``@file`` in the chat driven through a real
terminal, and ``-p --output-format stream-json`` whose every line matches the shipped JSON Schema."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pexpect
import pytest
from tests.helpers.real_env import real_env
from tests.helpers.repos import make_git_repo

from acode.cli.stream_events import shipped_schema
from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore


def stats_quit_and_messages(child: pexpect.spawn, repo) -> list:
    """``/stats`` (it must count the model calls), ``/quit``, then the session's recorded messages."""
    child.sendline("/stats")
    child.expect(r"model calls\s+[1-9]")
    child.expect("acode>")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    store = SessionStore(ProjectPaths(repo).db_file)
    try:
        return store.load_messages(store.list()[0].id)
    finally:
        store.close()


@pytest.mark.real_model
def test_at_file_in_a_real_terminal_with_the_real_model(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": "def multiply_numbers(a, b):\n    return a * b\n"})
    child = pexpect.spawn(
        sys.executable,
        ["-m", "acode"],
        cwd=str(repo),
        env=real_env(),
        encoding="utf-8",
        timeout=600,
        dimensions=(40, 120),
    )
    child.expect("session")
    child.expect("acode>")
    child.sendline("What is the name of the function in @util.py? Reply with the name only.")
    child.expect("@ included 1 file")
    asked = 0
    # the 0.5B model sometimes reaches for an edit tool (the approval question) or asks back (ask_user)
    while (which := child.expect([r"allow\?", r"\r\n  > ", "acode>"])) != 2:
        asked += 1
        child.sendline("n" if which == 0 else "Just tell me the function's name.")
        assert asked < 6
    messages = stats_quit_and_messages(child, repo)
    user = next(m for m in messages if m.role == "user")
    assert "Content from @util.py:" in user.content and "return a * b" in user.content
    # the model worked from the file's content: its answer or its tool calls name the function
    said = " ".join(
        m.content + json.dumps([c.arguments for c in m.tool_calls or []])
        for m in messages
        if m.role == "assistant"
    )
    assert "multiply_numbers" in said
    if asked:  # the answered questions went back to the model as tool results
        assert any(m.role == "tool" for m in messages)


@pytest.mark.real_model
def test_stream_json_of_a_real_run_matches_the_schema(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "acode",
            "-p",
            "create hello.py that prints hello, then run it",
            "--approval-mode",
            "yolo",
            "--output-format",
            "stream-json",
        ],
        cwd=repo,
        env={**real_env(), "ACODE_AGENT__MAX_TURNS": "6"},
        capture_output=True,
        text=True,
        timeout=1500,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr[-2000:]
    validator = jsonschema.Draft202012Validator(shipped_schema())
    events = [json.loads(line) for line in out.stdout.splitlines()]
    for event in events:
        validator.validate(event)
    assert events[0]["type"] == "init" and events[0]["backend"] == "embedded"
    assert events[-1]["type"] == "result" and events[-1]["exit_code"] == out.returncode
    uses = [e for e in events if e["type"] == "tool_use"]
    results = {e["tool_id"]: e for e in events if e["type"] == "tool_result"}
    assert uses and all(u["tool_id"] in results for u in uses)  # every call the model made has its outcome
    assert events[-1]["stats"]["tool_calls"] == len(results)
    assert events[-1]["stats"]["output_tokens"] > 0


@pytest.mark.real_model
def test_real_chat_answers_from_the_attached_file_and_keeps_its_guidance_off_screen(tmp_path):
    """Issue 28 item 12: asked "what does @util.py do?", the 0.5B read the attached file twice, asked the
    user their own question, and the loop's reminder (pasted file included) was printed on screen."""
    repo = make_git_repo(tmp_path / "repo", {"util.py": "def add(a, b):\n    return a + b\n",
                                             "test_util.py": "from util import add\n\n\ndef test_add():\n"
                                                             "    assert add(2, 3) == 5\n"})
    child = pexpect.spawn(sys.executable, ["-m", "acode"], cwd=str(repo), env=real_env(), encoding="utf-8",
                          timeout=600, dimensions=(40, 120))
    child.expect("acode>")
    child.sendline("what does @util.py do?")
    child.expect("@ included 1 file")
    screen = ""
    while (which := child.expect([r"allow\?", r"\r\n  > ", "acode>"])) != 2:
        screen += child.before
        if which == 0:
            child.sendline("n")
            continue
        child.sendline("/stats")  # a slash command at a question is not an answer: it runs after the turn
        child.expect("typed instead of an answer")
        child.expect(r"model calls\s+[1-9]")
    screen += child.before
    for internal in ("Content from", "(Task:", "The user asked", "Use that content"):
        assert internal not in screen, internal
    messages = stats_quit_and_messages(child, repo)
    assert not any(m.role == "tool" and "return a + b" in m.content for m in messages)  # not read again
    assert messages[-1].role == "assistant" and messages[-1].content.strip()  # the turn ended in an answer


@pytest.mark.real_model
def test_real_one_shot_refused_path_ends_with_an_answer(tmp_path):
    """Issue 28 item 12: after refusing ``../outside.txt`` the 1.5B toggled plan mode for 5.5 minutes."""
    repo = make_git_repo(tmp_path / "repo")
    # a secret no path holds: "42" was in pytest's temporary folder (pytest-422), which the answer quoted
    (tmp_path / "outside.txt").write_text("the secret is kumquat\n")
    out = subprocess.run(
        [sys.executable, "-m", "acode", "-p", "Read the file ../outside.txt and tell me what it says.",
         "--approval-mode", "yolo", "--json"],
        cwd=repo, env={**real_env(), "ACODE_AGENT__MAX_TURNS": "8"}, capture_output=True, text=True,
        timeout=1500, stdin=subprocess.DEVNULL, check=False,
    )
    data = json.loads(out.stdout)
    tools = [s for s in data["trajectory"] if s["type"] == "tool"]
    assert data["stop_reason"] == "answer" and data["answer"].strip(), out.stderr[-2000:]
    assert not {"enter_plan_mode", "exit_plan_mode"} & {t["name"] for t in tools}
    assert "kumquat" not in data["answer"] and all("the secret" not in t["output"] for t in tools)
    refused = [i for i, t in enumerate(tools) if "outside the workspace" in t["output"]]
    if refused:  # the refusal was the last tool call: the next model call could only answer
        assert refused[0] == len(tools) - 1
