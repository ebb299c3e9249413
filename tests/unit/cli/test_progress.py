"""Progress everywhere: ``acode run`` shows stage, step, elapsed time and tokens/s while a model works
(a live line in a terminal, a line per model call in a pipe); the chat spinner counts seconds and Ctrl-C
during a model call keeps the session, which ``acode -r latest`` resumes with the turn; output to a pipe
is not wrapped at 80 columns."""

from __future__ import annotations

import os
import subprocess
import sys

import pexpect
import pytest
from tests.helpers.agent_cli import ACODE, PROMPT, spawn_chat, write_script
from tests.helpers.repos import make_git_repo
from tests.helpers.run_helpers import TASK, approve, good_execution, make_repo, plan, write_config

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

SLOW_PLAN = {**plan("add is_even(n) to util.py with a test"), "sleep": 2.5}


def test_run_in_a_terminal_shows_stage_step_elapsed_and_model_time(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write_config(repo, [SLOW_PLAN, *good_execution(), *approve()])
    child = pexpect.spawn(
        sys.executable,
        ["-m", "acode", "run", TASK, "--approve"],
        cwd=str(repo),
        encoding="utf-8",
        timeout=90,
        dimensions=(50, 200),
        env={**os.environ, "TERM": "xterm"},
    )
    child.expect(r"▶ plan · cycle 1 · \d+s · model [12]s")  # the live line, redrawn while the planner thinks
    child.expect(r"step 1/1: add is_even")
    child.expect("APPROVED")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_run_to_a_pipe_prints_a_line_per_model_call_with_tokens_per_second(tmp_path):
    repo = make_repo(tmp_path / "repo")
    write_config(repo, [SLOW_PLAN, *good_execution(), *approve()])
    out = subprocess.run(
        [*ACODE, "run", TASK],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    first = next(line for line in lines if "model call 1" in line)
    assert first.startswith("  model call 1 (plan):") and "tokens out" in first and "tokens/s" in first
    assert float(first.split(": ", 1)[1].split(" s,")[0]) >= 2.5  # the planner's call, measured
    assert any(line.startswith("  model call ") and "(execute, step 1/1)" in line for line in lines)
    assert "  step 1/1: add is_even(n) to util.py with a test" in lines
    assert "▶ plan · cycle" not in out.stderr  # no live line in a pipe


@pytest.mark.slow
def test_ctrl_c_during_a_model_call_then_resume_latest_has_the_turn(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    script = write_script(repo, [{"sleep": 60, "text": "too slow"}])
    child = spawn_chat(repo, script)
    child.sendline("summarise the readme")
    child.expect(r"thinking \(turn 1\) · [1-9]\d*s · Ctrl-C stops")  # the spinner counts seconds
    child.sendintr()
    child.expect("interrupted")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()

    resumed_script = write_script(repo, ["The readme says: sample."])
    resumed = spawn_chat(repo, resumed_script, "-r", "latest")  # returns at the first prompt
    assert "(1 messages)" in resumed.before  # the interrupted turn's prompt, shown as the last exchange
    assert "summarise the readme" in resumed.before
    resumed.sendline("go on")
    resumed.expect("The readme says: sample")
    resumed.expect(PROMPT)
    resumed.sendline("/quit")
    resumed.expect(pexpect.EOF)
    store = SessionStore(ProjectPaths(repo).db_file)
    sessions = store.list()
    assert len(sessions) == 1
    messages = store.load_messages(sessions[0].id)
    assert [(m.role, m.content) for m in messages[1:]] == [
        ("user", "summarise the readme"),
        ("user", "go on"),
        ("assistant", "The readme says: sample."),
    ]


def test_output_to_a_pipe_is_not_wrapped_at_80_columns(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    long_rule = "Always " + " ".join(f"word{n}" for n in range(60)) + " end."
    (repo / "ACODE.md").write_text(long_rule + "\n")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = subprocess.run(
        [*ACODE, "memory", "show"], cwd=repo, capture_output=True, text=True, timeout=60, env=env, check=False
    )
    assert out.returncode == 0 and len(long_rule) > 300
    assert long_rule in out.stdout.splitlines()
    name = "model-" + "x" * 150
    shown = subprocess.run(
        [*ACODE, "config", "show"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        env={**env, "ACODE_MODEL__NAME": name},
        check=False,
    )
    assert f'model.name: "{name}"  # environment variable ACODE_MODEL__NAME' in shown.stdout.splitlines()
