"""Under `acode … &` SIGINT and SIGQUIT arrive ignored; every child acode starts gets them back at their
default, so a project's test that interrupts a child and waits for it does not wait until the time limit."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from acode.agent.middlewares.hook_runner import HookRunner
from acode.child_signals import shell_argv, with_default_signals
from acode.config.hooks import HooksSettings
from acode.pipeline.verifier import run_check
from acode.review.evidence.test_runs import run_tests
from acode.tools.shell import run_command

# exits 0 only when Ctrl-C means KeyboardInterrupt and Ctrl-\ means quit, as in a foreground process
PROBE = (
    f"{sys.executable} -c \"import signal, sys; sys.exit(0 if signal.getsignal(signal.SIGINT) is "
    "signal.default_int_handler and signal.getsignal(signal.SIGQUIT) == signal.SIG_DFL else 2)\""
)


@pytest.fixture
def started_in_background():
    """This process as a shell without job control starts `cmd &`: both signals ignored."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGQUIT)}
    for number in saved:
        signal.signal(number, signal.SIG_IGN)
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


def test_nothing_is_added_when_nothing_is_ignored():
    assert with_default_signals(["pytest", "-q"]) == ["pytest", "-q"]
    assert shell_argv("echo hi") == ["/bin/sh", "-c", "echo hi"]


def test_the_probe_fails_in_a_plain_child_of_a_background_process(started_in_background):
    # the situation being fixed: an ignored signal stays ignored in a child started without the launcher
    assert subprocess.run(["/bin/sh", "-c", PROBE], check=False).returncode == 2
    assert subprocess.run(shell_argv(PROBE), check=False).returncode == 0


def test_an_interrupted_child_stops_instead_of_carrying_on(started_in_background):
    interrupt_self = "import os, signal, time; os.kill(os.getpid(), signal.SIGINT); time.sleep(30)"
    argv = [sys.executable, "-c", interrupt_self]
    done = subprocess.run(with_default_signals(argv), capture_output=True, text=True, timeout=20, check=False)
    assert done.returncode == -signal.SIGINT and "KeyboardInterrupt" in done.stderr


def test_a_missing_program_is_named_with_exit_127(started_in_background):
    done = subprocess.run(with_default_signals(["no-such-program-acode"]), capture_output=True, text=True,
                          check=False)
    assert done.returncode == 127
    assert "could not start no-such-program-acode" in done.stderr


def test_review_test_runs_get_default_signals(started_in_background, tmp_path):
    (tmp_path / "report").mkdir()
    run = run_tests(PROBE, tmp_path, timeout=30, report=tmp_path / "report" / "r.xml")
    assert run.exit_code == 0, run.output_tail


def test_verifier_checks_get_default_signals(started_in_background, tmp_path):
    assert run_check(tmp_path, PROBE, "project", timeout=30, shell=True).passed
    assert run_check(tmp_path, PROBE, "project", timeout=30, shell=False).passed


def test_shell_tool_commands_get_default_signals(started_in_background, tmp_path):
    outcome = run_command(PROBE, tmp_path, inactivity_timeout=30, spill_path=tmp_path / "spill.txt")
    assert outcome.exit_code == 0, outcome.output


def test_hooks_get_default_signals(started_in_background, tmp_path):
    settings = HooksSettings.model_validate({"BeforeAgent": [{"hooks": [{"command": PROBE}]}]})
    outcome = HookRunner(settings, session_id="s", cwd=tmp_path).run("BeforeAgent", {})
    assert not outcome.blocked, outcome.reasons
    assert not outcome.warnings
