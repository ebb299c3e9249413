"""Flags people bring from Gemini CLI, through the real CLI: ``-y/--yolo``, ``-r`` without a value,
``-i/--prompt-interactive`` (in a terminal), ``-v`` after a sub-command, and help without ``<bool>``."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pexpect
import pytest
import yaml
from tests.helpers.agent_cli import PROMPT, cli_env, run_cli, write_script
from tests.helpers.chat import last_session_messages, quit_chat
from tests.helpers.review_fakes import BUGGY, SOUND, repo_with_branch

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

WRITE_THEN_ANSWER = [
    {"tool": "write_file", "arguments": {"file_path": "made.txt", "content": "made by the model\n"}},
    "I wrote made.txt.",
]


@pytest.fixture
def repo(git_repo):
    """A git repository that is its own acode project (a stray .acode folder above it must not win)."""
    (git_repo / ".acode").mkdir()
    return git_repo


def acode(*args: str, cwd, env=None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acode", *args], check=False, cwd=cwd, capture_output=True, text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "120", **(env or {})}, stdin=subprocess.DEVNULL,
    )


def test_help_shows_no_type_after_yes_no_flags(tmp_path):
    for args in (["--help"], ["review", "--help"], ["review", "run", "--help"], ["config", "show", "--help"]):
        out = acode(*args, cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "<bool>" not in out.stdout, args
        assert "--help" in out.stdout and "<str>" in out.stdout or args[0] == "config"
    top = acode("--help", cwd=tmp_path).stdout
    assert "--yolo" in top and "--prompt-interactive" in top


def test_yolo_flag_approves_the_write_like_approval_mode_yolo(repo):
    script = write_script(repo, WRITE_THEN_ANSWER)
    out = run_cli(repo, script, "-y", "-p", "write made.txt")
    assert out.returncode == 0, out.stderr
    assert (repo / "made.txt").read_text() == "made by the model\n"
    assert out.stdout == "I wrote made.txt.\n"


def test_yolo_long_form_with_the_same_approval_mode_is_accepted(repo):
    script = write_script(repo, WRITE_THEN_ANSWER)
    out = run_cli(repo, script, "--yolo", "--approval-mode", "yolo", "-p", "write made.txt")
    assert out.returncode == 0, out.stderr
    assert (repo / "made.txt").exists()


def test_yolo_with_another_approval_mode_is_a_usage_error(repo):
    script = write_script(repo, WRITE_THEN_ANSWER)
    out = run_cli(repo, script, "-y", "--approval-mode", "plan", "-p", "write made.txt")
    assert out.returncode == 2 and "ACODE-CLI-001" in out.stderr and "Traceback" not in out.stderr
    assert not (repo / "made.txt").exists()
    as_json = run_cli(repo, script, "-y", "--approval-mode", "plan", "-p", "go", "--output-format", "json")
    assert as_json.returncode == 2 and "ACODE-CLI-001" in as_json.stdout  # scripts read the error too


def _sessions(repo):
    store = SessionStore(ProjectPaths(repo).db_file)
    try:
        return store.list(limit=10)
    finally:
        store.close()


def test_resume_without_a_value_continues_the_latest_session(repo):
    script = write_script(repo, ["First answer.", "Second answer."])
    first = run_cli(repo, script, "-p", "first question", "--json")
    assert first.returncode == 0, first.stderr
    first_id = json.loads(first.stdout)["session_id"]
    for resume_args in (["-r", "-p", "second question"], ["-p", "second question", "-r"]):
        again = run_cli(repo, script, *resume_args, "--json")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["session_id"] == first_id, resume_args
    assert len(_sessions(repo)) == 1


def test_resume_with_a_value_still_takes_it(repo):
    script = write_script(repo, ["First answer."])
    out = run_cli(repo, script, "-r", "no-such-session", "-p", "hello")
    assert out.returncode != 0 and "no-such-session" in out.stderr


def _slow_review_repo(tmp_path):
    """A branch to review on the scripted model whose second answer outlasts the time limit: the review
    logs 'review ran out of time' (at INFO, shown with -v)."""
    repo = repo_with_branch(tmp_path / "repo", {"pages.py": SOUND}, {"pages.py": BUGGY})
    script = tmp_path / "script.yml"
    nothing = {"json": {"findings": []}}
    script.write_text(yaml.safe_dump([nothing, {"sleep": 2.0, "json": {"findings": []}}] + [nothing] * 4))
    # no tests and no behavioural diff: only model calls spend the limit, so the first one is read in time
    # however loaded the machine is
    config = {"model": {"backend": "scripted", "script": str(script)},
              "reviewer": {"require_candidates": False, "strategy": "per_dimension", "timeout_seconds": 1.5,
                           "run_tests": False, "behaviour": {"enabled": False}}}
    (repo / ".acode").mkdir()
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump(config))
    return repo


@pytest.mark.slow
def test_verbose_after_a_sub_command_is_accepted_like_before_it(tmp_path):
    repo = _slow_review_repo(tmp_path)
    quiet = acode("review", "run", "--json", "--trust", cwd=repo)
    assert quiet.returncode == 0, quiet.stderr
    assert "ran out of time" not in quiet.stderr
    for args in (["-v", "review", "run"], ["review", "-v", "run"], ["review", "run", "-v"],
                 ["review", "run", "--verbose"]):
        out = acode(*args, "--json", "--trust", cwd=repo)
        assert out.returncode == 0, (args, out.stderr)
        assert "review ran out of time" in out.stderr, args
        assert json.loads(out.stdout)["status"] == "partial"


def test_prompt_interactive_runs_the_prompt_then_stays_in_the_chat(repo):
    script = write_script(repo, ["Hello from the first prompt.", "And the second answer."])
    child = pexpect.spawn(
        sys.executable, ["-m", "acode", "--backend", "scripted", "-i", "say hello"], cwd=str(repo),
        env=cli_env(script), encoding="utf-8", timeout=30, dimensions=(40, 120),
    )
    child.expect("Hello from the first prompt")
    child.expect(PROMPT)  # still in the chat
    child.sendline("and again")
    child.expect("And the second answer")
    child.expect(PROMPT)
    quit_chat(child)
    assert len(_sessions(repo)) == 1
    assert [m.content for m in last_session_messages(repo) if m.role == "user"] == ["say hello", "and again"]


def test_prompt_interactive_without_a_terminal_is_a_usage_error(repo):
    script = write_script(repo, ["unused"])
    out = run_cli(repo, script, "-i", "say hello")
    assert out.returncode == 2 and "ACODE-CLI-003" in out.stderr and "Traceback" not in out.stderr
    both = run_cli(repo, script, "-i", "say hello", "-p", "and this")
    assert both.returncode == 2 and "ACODE-CLI-002" in both.stderr
