"""Issue 30 items 6 and 9: what acode prints for people and machines.

Item 9: text from a model, a tool or a repository reaches the terminal with its control characters made
visible (``ESC`` -> ``^[``): an answer cannot write the clipboard (OSC 52), retitle the window or clear the
screen, on stdout (-p), stderr (progress) or in ``acode agent status``. Without a terminal rich prints no
styling, so any ESC byte in these outputs could only come from the content.

Item 6: stream-json, the progress lines and the saved outputs (``.acode/outputs/shell-*.txt``) go through
the same secret redaction as ``--json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

ESC = "\x1b"
HOSTILE = f"Done.{ESC}]52;c;cm0gLXJmIH4={chr(7)} {ESC}]0;pwned{chr(7)}{ESC}[2J{ESC}[31mred"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
DB_PASSWORD = "Tr0ub4dor&3-horse-staple"


def acode(repo: Path, *args: str, script: list | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, ACODE_NEXT_SPEAKER__ENABLED="false", COLUMNS="200")
    if script is not None:
        path = repo.parent / "terminal-script.yml"
        path.write_text(yaml.safe_dump(script))
        env["ACODE_MODEL__SCRIPT"] = str(path)
    return subprocess.run([sys.executable, "-m", "acode", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)


def test_escape_sequences_from_the_model_and_files_are_shown_not_obeyed(git_repo):
    (git_repo / ".acode").mkdir()
    (git_repo / "notes.txt").write_text(f"title {ESC}]0;owned{chr(7)} then {ESC}[2J cleared\n")
    out = acode(git_repo, "-p", "read notes.txt", "--backend", "scripted", script=[
        {"tool": "grep_search", "arguments": {"pattern": "title"}},
        HOSTILE,
    ])
    assert out.returncode == 0, out.stderr
    assert ESC not in out.stdout and ESC not in out.stderr
    assert "^[]52;c;cm0gLXJmIH4=^G ^[]0;pwned^G^[[2J^[[31mred" in out.stdout
    assert "title ^[]0;owned^G then ^[[2J cleared" in out.stderr  # the tool's output, in the progress lines

    as_json = acode(git_repo, "-p", "again", "--backend", "scripted", "--json", script=[HOSTILE])
    assert json.loads(as_json.stdout)["answer"] == HOSTILE  # raw output asked for: JSON escapes it itself


def test_agent_status_shows_a_task_prompts_escapes(git_repo):
    (git_repo / ".acode").mkdir()
    prompt = f"look {ESC}]0;pwned{chr(7)}{ESC}[2J"
    started = acode(git_repo, "agent", "start", "codebase_investigator", prompt)
    assert started.returncode == 0, started.stderr
    status = acode(git_repo, "agent", "status")
    assert status.returncode == 0, status.stderr
    assert ESC not in status.stdout and "^[]0;pwned^G^[[2J" in status.stdout


def test_stream_json_progress_and_saved_outputs_hide_secrets(git_repo):
    (git_repo / ".acode").mkdir()
    (git_repo / "creds.env").write_text(f"GITHUB_TOKEN={GITHUB_TOKEN}\nDB_PASSWORD={DB_PASSWORD}\n")
    command = "cat creds.env; seq 1 3000; cat creds.env"  # long enough to be cut and saved in full
    out = acode(git_repo, "-p", f"check the login, the password is DB_PASSWORD={DB_PASSWORD}", "--backend",
                "scripted", "--output-format", "stream-json", "--approval-mode", "yolo", script=[
                    {"tool": "run_shell_command", "arguments": {"command": command}},
                    {"tool": "read_file", "arguments": {"file_path": "creds.env"}},
                    f"The token is {GITHUB_TOKEN}.",
                ])
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    results = [e for e in events if e["type"] == "tool_result"]
    assert len(results) == 2 and all("GITHUB_TOKEN=[REDACTED]" in r["output"] for r in results)
    assert [e["content"] for e in events if e["type"] == "message" and e["role"] == "user"] == [
        "check the login, the password is DB_PASSWORD=[REDACTED]"
    ]
    saved = list((git_repo / ".acode" / "outputs").rglob("shell-*.txt"))
    assert len(saved) == 1 and "2999" in saved[0].read_text()
    for where in (out.stdout, out.stderr, saved[0].read_text()):
        assert GITHUB_TOKEN not in where and DB_PASSWORD not in where

    plain = acode(git_repo, "-p", "show it", "--backend", "scripted", "--approval-mode", "yolo", script=[
        {"tool": "read_file", "arguments": {"file_path": "creds.env"}}, f"The token is {GITHUB_TOKEN}.",
    ])
    assert plain.returncode == 0, plain.stderr
    assert GITHUB_TOKEN not in plain.stdout + plain.stderr and "[REDACTED]" in plain.stdout


def test_log_lines_show_the_escapes_of_the_names_they_quote(tmp_path):
    """A warning names a folder (here a clone whose name holds ESC]0: it would retitle the terminal)."""
    from tests.helpers.repos import git, make_git_repo

    repo = make_git_repo(tmp_path / f"clone{ESC}]0;pwned{chr(7)}")
    (repo / ".acode").mkdir()
    git(repo, "init", "-q", "nested")  # an empty nested repository: the turn's snapshot fails, with a warning
    out = acode(repo, "-p", "look", "--backend", "scripted", script=["done"])
    assert out.returncode == 0, out.stderr
    assert "no snapshot before this turn" in out.stderr
    assert ESC not in out.stderr and "clone^[]0;pwned^G" in out.stderr
