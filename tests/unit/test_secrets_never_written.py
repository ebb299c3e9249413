"""Issue 14 item 5: secrets that pass through a run or a session are never written: not in
.acode/runs/<id>/ files, not in the session tables of .acode/acode.db, not in `-p --json`; .acode/ ignores
its runtime files; the search tools never return .acode/ files."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

ACODE = [sys.executable, "-m", "acode"]
DB_PASSWORD = "hunter2isnotsafe"
YAML_PASSWORD = "s3cr3tP4ssw0rd"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PEM_BODY = "MIIEpAIBAAKCAQEAz1Y2dGhpcyBpcyBub3QgYSByZWFs"
PEM = (
    f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
    "a2V5IGJ1dCBpdCBsb29rcyBsaWtl\n-----END RSA PRIVATE KEY-----\n"
)
RAW = (DB_PASSWORD, YAML_PASSWORD, AWS_SECRET, PEM_BODY)
SETTINGS = f"DB_PASSWORD={DB_PASSWORD}\ndatabase:\n  password: {YAML_PASSWORD}\n"
CREDENTIALS = f"[default]\naws_secret_access_key = {AWS_SECRET}\n"


def run(repo: Path, *args: str, script: list) -> subprocess.CompletedProcess:
    path = repo.parent / "secrets-script.yml"
    path.write_text(yaml.safe_dump(script, sort_keys=False))
    env = dict(
        os.environ,
        ACODE_NEXT_SPEAKER__ENABLED="false",
        ACODE_MODEL__BACKEND="scripted",
        ACODE_MODEL__SCRIPT=str(path),
        COLUMNS="200",
    )
    return subprocess.run(
        [*ACODE, *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def leaks(text: str) -> list[str]:
    return [secret for secret in RAW if secret in text]


def database_text(db: Path) -> str:
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(str(row) for t in tables for row in conn.execute(f"SELECT * FROM {t}"))
    finally:
        conn.close()


def repo_with_secrets(repo: Path) -> Path:
    (repo / "settings.env").write_text(SETTINGS)
    (repo / "credentials").write_text(CREDENTIALS)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True)
    return repo


def test_one_shot_json_and_the_session_tables_hold_no_secret(git_repo):
    repo = repo_with_secrets(git_repo)
    out = run(
        repo,
        "-p",
        f"check the settings; the old one was DB_PASSWORD={DB_PASSWORD}",
        "--json",
        "--approval-mode",
        "yolo",
        script=[
            {"tool": "read_file", "arguments": {"file_path": "settings.env"}},
            {"tool": "run_shell_command", "arguments": {"command": "cat credentials"}},
            {"tool": "write_file", "arguments": {"file_path": "key.pem", "content": PEM}},
            f"Found password: {YAML_PASSWORD} and aws_secret_access_key = {AWS_SECRET}",
        ],
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert [s["ok"] for s in data["trajectory"] if s["type"] == "tool"] == [True, True, True]
    assert leaks(out.stdout) == [], out.stdout
    assert "[REDACTED]" in data["answer"]
    assert leaks(database_text(repo / ".acode" / "acode.db")) == []
    assert (repo / "key.pem").read_text() == PEM  # the user's files are the user's: only records are redacted


def test_run_records_hold_no_secret(git_repo):
    repo = repo_with_secrets(git_repo)
    plan = {
        "json": {
            "summary": f"rotate DB_PASSWORD={DB_PASSWORD}",
            "steps": [
                {
                    "description": f"write config.yml with password: {YAML_PASSWORD}",
                    "check": "the file exists",
                    "check_command": "",
                }
            ],
        }
    }
    finding = {
        "dimension": "code_quality",
        "file": "config.yml",
        "line_number": 1,
        "line": "x",
        "problem": "could be wrong",
        "severity": "low",
        "suggestion": "double-check",
    }
    script = [
        plan,
        {
            "tool": "write_file",
            "arguments": {"file_path": "config.yml", "content": f"password: {YAML_PASSWORD}\n"},
        },
        {"tool": "run_shell_command", "arguments": {"command": "cat credentials"}},
        f"Wrote it. The key was\n{PEM}",
        {"json": {"findings": [finding]}},
        "no",
    ]
    (repo / ".acode").mkdir(exist_ok=True)
    (repo / ".acode" / "config.yml").write_text(
        yaml.safe_dump(
            {
                "reviewer": {"strategy": "single_call", "lookaround": {"enabled": False}},
                "pipeline": {"approval_mode": "yolo", "verify_commands": [], "max_cycles": 1},
            }
        )
    )
    out = run(
        repo, "--trust", "run", f"store DB_PASSWORD={DB_PASSWORD} in config.yml", "--json", script=script
    )
    assert out.returncode in (0, 50), out.stderr
    assert leaks(out.stdout) == []
    [run_dir] = list((repo / ".acode" / "runs").glob("run-*"))
    names = {p.name for p in run_dir.iterdir()}
    assert {"plan_v1.md", "plan_v1.json", "state.json", "summary.json", "events.jsonl"} <= names
    assert any(n.startswith("step_") and n.endswith(".json") for n in names)
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert leaks(path.read_text(encoding="utf-8", errors="replace")) == [], path.name
    assert leaks(database_text(repo / ".acode" / "acode.db")) == []


def test_acode_ignores_its_runtime_files_and_search_tools_skip_them(git_repo):
    (git_repo / "app.py").write_text("NEEDLE = 1\n")
    hidden = git_repo / ".acode" / "checkpoints" / "s1"
    hidden.mkdir(parents=True)
    (hidden / "app.py.bak").write_text("NEEDLE = 0\n")
    out = run(
        git_repo,
        "-p",
        "find NEEDLE",
        "--json",
        script=[
            {"tool": "grep_search", "arguments": {"pattern": "NEEDLE"}},
            {"tool": "glob", "arguments": {"pattern": "**/*"}},
            {"tool": "list_directory", "arguments": {"dir_path": "."}},
            {"tool": "list_files", "arguments": {"dir_path": ".acode"}},
            {"tool": "search_in_files", "arguments": {"pattern": "NEEDLE"}},
            "done",
        ],
    )
    assert out.returncode == 0, out.stderr
    tools = [s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool"]
    assert "app.py" in tools[0]["output"] and "app.py" in tools[1]["output"]
    for tool in tools:
        shown = tool["output"].replace(".acodeignore", "")
        assert ".acode" not in shown and "app.py.bak" not in shown, (tool["name"], tool["output"])
    ignore = (git_repo / ".acode" / ".gitignore").read_text()
    assert "acode.db" in ignore and "outputs/" in ignore and "runs/" in ignore
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    untracked = [line[3:] for line in status.splitlines()]
    assert [p for p in untracked if p.startswith(".acode/")] == [".acode/.gitignore"], status
