"""run_shell_command (process group, inactivity timeout, background, budget, signals, Ctrl-C) and
ask_user."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from acode.tools.base import ToolContext
from acode.tools.output_budget import cut_head_tail, fit_to_budget
from acode.tools.shell import run_command


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie still "exists"; look at its state
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_runs_in_workspace_and_reports_exit_code(workspace, call):
    (workspace / "sub").mkdir()
    result = call("run_shell_command", command="pwd; echo err >&2; exit 3", dir_path="sub")
    assert result.ok
    assert str((workspace / "sub").resolve()) in result.output
    assert "err" in result.output
    assert result.output.endswith("[exit code: 3]")


def test_signal_is_reported(call):
    result = call("run_shell_command", command="kill -KILL $$")
    assert "[killed by signal SIGKILL]" in result.output


def test_inactivity_timeout_kills_the_process_group(workspace, ctx, call):
    ctx.shell_inactivity_timeout = 0.8
    started = time.monotonic()
    result = call("run_shell_command", command="echo start; sleep 30 & echo $! > child.pid; wait")
    assert time.monotonic() - started < 15
    assert "no output for 0.8s" in result.output and "start" in result.output
    child = int((workspace / "child.pid").read_text())
    deadline = time.monotonic() + 5
    while _pid_alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _pid_alive(child), "the background child in the group must be killed too"


def test_a_command_still_running_at_its_own_time_limit_is_stopped_even_while_it_prints(workspace, ctx, call):
    ctx.shell_inactivity_timeout = 60
    command = "echo $$ > shell.pid; while true; do echo tick; sleep 0.2; done"
    result = call("run_shell_command", command=command, timeout_seconds=1)
    assert "[still running after 1s: the command's process group was killed]" in result.output
    assert "tick" in result.output and "[exit code: 0]" not in result.output
    assert not _pid_alive(int((workspace / "shell.pid").read_text()))
    quick = call("run_shell_command", command="echo done", timeout_seconds=5)
    assert quick.output.endswith("[exit code: 0]") and "still running" not in quick.output


def test_steady_output_is_not_an_inactivity_timeout(ctx, call):
    ctx.shell_inactivity_timeout = 0.6
    result = call("run_shell_command", command="for i in 1 2 3 4; do echo tick$i; sleep 0.3; done")
    assert "tick4" in result.output and "no output" not in result.output and "[exit code: 0]" in result.output


def test_long_output_is_cut_and_saved_in_full(ctx, call):
    ctx.output_budget_chars = 1000
    result = call("run_shell_command", command="for i in $(seq 1 2000); do echo line$i; done")
    saved = re.search(r"full output saved to (\S+)\]", result.output)
    assert saved, result.output
    full = Path(saved.group(1)).read_text()
    assert full.splitlines() == [f"line{i}" for i in range(1, 2001)]
    assert Path(saved.group(1)).parent == ctx.outputs_dir
    assert "line1\n" in result.output and "line2000" in result.output and "line1000\n" not in result.output
    body = result.output.split("\n", 2)[2]
    assert len(body) < 1400


def test_short_output_leaves_no_file(ctx, call):
    call("run_shell_command", command="echo hi")
    assert not list(ctx.outputs_dir.glob("shell-*"))


def test_background_returns_pid_and_runs_in_own_group(ctx, call):
    result = call("run_shell_command", command="echo bg-started; sleep 30", is_background=True)
    pid = int(re.search(r"PID (\d+)", result.output).group(1))
    try:
        assert os.getpgid(pid) == pid
        log = Path(re.search(r"output goes to (\S+);", result.output).group(1))
        deadline = time.monotonic() + 5
        while "bg-started" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "bg-started" in log.read_text()
    finally:
        os.killpg(pid, signal.SIGKILL)
        ctx.state["background_processes"][pid].wait()


def test_keyboard_interrupt_kills_group_and_reraises(tmp_path):
    pid_file = tmp_path / "pid"
    main_thread = threading.get_ident()

    def interrupt_soon():
        deadline = time.monotonic() + 10
        while not pid_file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        signal.pthread_kill(main_thread, signal.SIGINT)

    threading.Thread(target=interrupt_soon, daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        run_command(f"echo $$ > {pid_file}; sleep 60", tmp_path, 60.0, tmp_path / "spill.txt")
    shell_pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while _pid_alive(shell_pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _pid_alive(shell_pid)


def test_shell_errors(workspace, call):
    (workspace / "f.txt").write_text("x")
    assert "not a directory" in call("run_shell_command", command="ls", dir_path="f.txt").error
    assert "outside the workspace" in call("run_shell_command", command="ls", dir_path="..").error
    assert "command is empty" in call("run_shell_command", command="  ").error
    assert "command: Field required" in call("run_shell_command").error


def test_cut_head_tail_keeps_a_fifth_and_four_fifths():
    text = "".join(f"{i:04d}\n" for i in range(2000))  # 10,000 chars
    cut = cut_head_tail(text, 1000, saved_to="/x/full.txt")
    head, _, rest = cut.partition("\n... [")
    marker, _, tail = rest.partition("] ...\n")
    assert text.startswith(head) and 150 <= len(head) <= 200
    assert "full output saved to /x/full.txt" in marker
    assert text.endswith(tail) and 750 <= len(tail) <= 800
    assert cut_head_tail("short", 1000) == "short"


def test_fit_to_budget_saves_only_when_cut(tmp_path):
    assert fit_to_budget("small", 100, tmp_path, "x") == ("small", None)
    text, saved = fit_to_budget("y" * 500, 100, tmp_path, "x")
    assert saved.read_text() == "y" * 500 and str(saved) in text


def test_ask_user_interactive(workspace, call):
    seen = []

    def answer(questions):
        seen.extend(questions)
        return ["blue"]

    ctx = ToolContext(workspace=workspace, interactive=True, ask_user=answer)
    result = call("ask_user", ctx, questions=["Colour?", "Size?"])
    assert seen == ["Colour?", "Size?"]
    assert result.data == {
        "answers": [{"question": "Colour?", "answer": "blue"}, {"question": "Size?", "answer": ""}]
    }
    assert "A: (no answer)" in result.output


def test_ask_user_non_interactive_is_an_error(call):
    result = call("ask_user", questions=["Which one?"])
    assert "No user is available" in result.error
    assert "questions: List should have at least 1 item" in call("ask_user", questions=[]).error
