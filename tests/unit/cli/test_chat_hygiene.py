"""Small-model chat hygiene (issue 28, item 12), through the CLI with the scripted model replaying what the
real 0.5B and 1.5B did: the chat in a real terminal (pexpect) reading the screen, ``-p`` as a script runs
it. What the loop tells the model never reaches the screen; a slash command typed at a question is not
an answer; an attached file is not read again; a refused path, or plan-mode toggles, end the turn."""

from __future__ import annotations

import json

import pexpect
from tests.helpers.agent_cli import PROMPT, run_cli, spawn_chat, write_script
from tests.helpers.chat import last_session_messages, quit_chat
from tests.helpers.repos import make_git_repo

UTIL = "def add(a, b):\n    return a + b\n"


def screen_until(child: pexpect.spawn, pattern: str) -> str:
    child.expect(pattern)
    return child.before + child.after


def test_an_attached_file_is_not_read_again_and_the_guidance_stays_off_screen(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": UTIL})
    read = {"tool": "read_file", "arguments": {"file_path": "util.py"}}
    # what the real 0.5B did: read the attached file twice, then asked the user their own question
    script = write_script(repo, [
        read, read,
        {"tool": "ask_user", "arguments": {"questions": ["What does util.py do?"]}},
        "util.py defines add(a, b), which returns the sum of a and b.",
    ])
    child = spawn_chat(repo, script)
    child.sendline("what does @util.py do?")
    screen = screen_until(child, "returns the sum")
    screen += screen_until(child, PROMPT)
    assert screen.count("util.py is attached to the prompt: not read again") == 2
    assert "asked back the question it was given" in screen
    for internal in ("Content from", "The user asked", "not run again", "(Task:", "Answer it yourself"):
        assert internal not in screen, internal
    child.sendline("/stats")
    child.expect(r"tool calls\s+3\s+\(3 failed")  # none of the three ran
    child.expect(PROMPT)
    quit_chat(child)
    tools = [m for m in last_session_messages(repo) if m.role == "tool"]
    assert "answer from it" in tools[0].content and "own question" in tools[2].content  # the model is told


def test_a_slash_command_typed_at_a_question_runs_and_is_not_the_answer(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": UTIL})
    script = write_script(repo, [
        {"tool": "ask_user", "arguments": {"questions": ["Which function should I rename?"]}},
        "Renamed it.",  # must not be reached: the turn stops at the question
    ])
    child = spawn_chat(repo, script)
    child.sendline("rename the function in util.py")
    child.expect("Which function should I rename")
    child.expect("  > ")
    child.sendline("/stats")
    child.expect("/stats was typed instead of an answer")
    child.expect(r"model calls\s+1")  # /stats ran, after the turn stopped
    child.expect(PROMPT)
    quit_chat(child)
    messages = last_session_messages(repo)
    answer = next(m for m in messages if m.role == "tool")
    assert "/stats" not in answer.content and "Renamed it." not in [m.content for m in messages]


def test_a_refused_path_ends_a_one_shot_turn_with_a_plain_answer(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    (tmp_path / "outside.txt").write_text("secret\n")
    toggles = [{"tool": "enter_plan_mode", "arguments": {}},
               {"tool": "exit_plan_mode", "arguments": {"plan_filename": "plan.md"}}] * 5
    # what the 1.5B did after the refusal: toggled plan mode until loop detection stopped it
    refused = {"tool": "read_file", "arguments": {"file_path": "../outside.txt"}}
    script = write_script(repo, [refused, *toggles])
    out = run_cli(repo, script, "-p", "read ../outside.txt", "--approval-mode", "yolo", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["stop_reason"] == "answer", out.stderr
    assert [(s["name"], s["ok"]) for s in data["trajectory"] if s["type"] == "tool"] == [("read_file", False)]
    assert data["turns"] == 2  # the refusal, then one call that could only answer
    assert "outside the workspace" in data["answer"]


def test_a_one_shot_run_is_not_offered_the_plan_mode_tools(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    script = write_script(repo, [
        {"tool": "run_shell_command", "arguments": {"command": "touch created_by_shell.txt"}},
        {"tool": "enter_plan_mode", "arguments": {}},  # the 1.5B's next step, once the command had run
        "Created created_by_shell.txt.",
    ])
    out = run_cli(repo, script, "-p", "Create an empty file created_by_shell.txt with the shell",
                  "--approval-mode", "yolo", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and (repo / "created_by_shell.txt").exists(), out.stderr
    steps = {s["name"]: s for s in data["trajectory"] if s["type"] == "tool"}
    assert steps["enter_plan_mode"]["decision"] == "invalid"  # not a tool of this run: nothing toggled
    assert "Unknown tool 'enter_plan_mode'" in steps["enter_plan_mode"]["error"]
    assert data["answer"] == "Created created_by_shell.txt."


def test_a_one_command_request_ends_once_the_command_ran(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    touch = {"tool": "run_shell_command", "arguments": {"command": "touch created_by_shell.txt"}}
    same = {"file_path": "created_by_shell.txt", "old_string": "x", "new_string": "x"}
    # what the 1.5B did once the command had run: invented content, then the same failing replace 5 times
    script = write_script(repo, [
        touch,
        {"tool": "write_file", "arguments": {"file_path": "created_by_shell.txt", "content": "x"}},
        *[{"tool": "replace", "arguments": same}] * 5,
    ])
    out = run_cli(repo, script, "-p", "Run the shell command: touch created_by_shell.txt",
                  "--approval-mode", "yolo", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["stop_reason"] == "answer", out.stderr
    assert [s["name"] for s in data["trajectory"] if s["type"] == "tool"] == ["run_shell_command"]
    assert (repo / "created_by_shell.txt").read_text() == ""  # nothing invented


def test_the_same_failing_call_twice_ends_the_turn(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"notes.txt": "a\n"})
    same = {"file_path": "notes.txt", "old_string": "a", "new_string": "a"}
    script = write_script(repo, [*[{"tool": "replace", "arguments": same}] * 6, "unused"])
    out = run_cli(repo, script, "-p", "tidy notes.txt", "--approval-mode", "yolo", "--json")
    data = json.loads(out.stdout)
    # the turn ends after the second identical failure (not loop detection's 5); every edit failed, so
    # the run says the change was not made
    assert data["stop_reason"] == "change_not_made" and data["turns"] == 3, out.stderr
    assert out.returncode == 1
    assert data["answer"].startswith("Stopped: replace failed again: old_string and new_string are the same")
