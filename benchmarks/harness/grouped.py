"""A command run in a process group of its own, so a time limit, Ctrl-C or an error in the benchmark
stops everything it started: `subprocess.run` kills only its direct child on a timeout, and a test that
pytest started (one waiting on stdin ate a core for 14 minutes) or acode's own test runs were left behind."""

from __future__ import annotations

import os
import signal
import subprocess


def run_grouped(command: list[str] | str, *, timeout: float, **options) -> subprocess.CompletedProcess:
    """``subprocess.run(command, capture_output=True, text=True, timeout=timeout, **options)``, whose whole
    process group is stopped when it times out (``TimeoutExpired`` is raised as before) or when the caller
    is interrupted."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **options)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        stdout, stderr = proc.communicate()
        raise subprocess.TimeoutExpired(command, timeout, output=stdout, stderr=stderr) from None
    except BaseException:
        _kill(proc)
        raise
    return subprocess.CompletedProcess(command, proc.returncode, stdout, stderr)


def _kill(proc: subprocess.Popen) -> None:
    """SIGKILL the whole group (a benchmark's run has nothing to save), then reap the child. Not
    acode.tools.shell.kill_group (TERM, a grace period, then KILL): fix_project_tasks.py, which uses this,
    also runs under a Python without acode installed."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
