"""The sandbox a branch's tests run in: real bubblewrap processes, checked from the inside."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from acode import sandbox as sandbox_module
from acode.review.evidence.test_runs import plan_test_run
from acode.sandbox import find_sandbox, sandbox_env

SANDBOX, WHY_NOT = find_sandbox()
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")


def inside(code: str, tmp_path: Path, *, writable: list[Path] | None = None, env: dict | None = None,
           readable: list[Path] = ()) -> subprocess.CompletedProcess:
    argv = SANDBOX.command([sys.executable, "-c", code], writable=writable or [], cwd=Path("/"),
                           readable=readable)
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)


@needs_sandbox
def test_no_network_not_even_a_server_on_the_hosts_loopback(tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    accepted = []
    threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True).start()
    outside = socket.create_connection(("127.0.0.1", port), timeout=5)  # the server is reachable from here
    outside.close()
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')"
    done = inside(code, tmp_path)
    server.close()
    assert done.returncode != 0 and "connected" not in done.stdout
    assert "ConnectionRefused" in done.stderr or "unreachable" in done.stderr.lower()


@needs_sandbox
def test_writes_only_in_the_writable_folder(tmp_path):
    work, elsewhere = tmp_path / "work", tmp_path / "elsewhere"
    work.mkdir()
    elsewhere.mkdir()
    code = (f"from pathlib import Path; Path({str(work / 'ok.txt')!r}).write_text('ok')\n"
            f"try:\n    Path({str(elsewhere / 'no.txt')!r}).write_text('no')\nexcept OSError as e:\n"
            "    print('refused', type(e).__name__)\n"
            f"try:\n    Path({str(Path(sys.prefix) / 'no.txt')!r}).write_text('no')\nexcept OSError as e:\n"
            "    print('refused', type(e).__name__)")
    done = inside(code, tmp_path, writable=[work])
    assert done.returncode == 0, done.stderr
    assert (work / "ok.txt").read_text() == "ok"
    # nor into the Python environment (read-only even when it lies under /tmp, as in a clone made there)
    assert not (elsewhere / "no.txt").exists() and not (Path(sys.prefix) / "no.txt").exists()
    assert done.stdout.count("refused") == 2


@needs_sandbox
def test_credentials_in_home_are_hidden_and_the_environment_is_reduced(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE KEY")
    (home / ".netrc").write_text("machine example.org password hunter2")
    (home / "notes.txt").write_text("visible")
    monkeypatch.setenv("HOME", str(home))
    env = sandbox_env({"HOME": str(home), "PATH": "/usr/bin:/bin", "GITHUB_TOKEN": "ghp_x", "LC_ALL": "C"})
    assert set(env) == {"HOME", "PATH", "LC_ALL"}
    code = ("import os; from pathlib import Path; h = Path.home()\n"
            "print(sorted(os.listdir(h / '.ssh')), repr((h / '.netrc').read_text()),\n"
            "      (h / 'notes.txt').read_text())")
    done = inside(code, tmp_path, readable=[home], env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "''", "visible"]


def test_without_bubblewrap_auto_does_not_run_and_says_why(monkeypatch):
    monkeypatch.setattr(sandbox_module.shutil, "which", lambda name: None)
    sandbox_module.find_sandbox.cache_clear()
    try:
        plan, why = plan_test_run("auto", ["python -m pytest -q"])
        assert plan is None and "bubblewrap" in why and "--run-tests" in why
        asked, _ = plan_test_run(True, ["python -m pytest -q"])  # asked for: runs as the user, and says so
        assert asked.sandbox is None and "without a sandbox" in asked.note
        assert plan_test_run(False, ["python -m pytest -q"]) == (None, "")
    finally:
        sandbox_module.find_sandbox.cache_clear()


@needs_sandbox
def test_with_bubblewrap_auto_runs_in_it():
    plan, why = plan_test_run("auto", ["python -m pytest -q"])
    assert plan.sandbox is not None and why == "" and plan.note == ""
    off, why_off = plan_test_run("auto", ["python -m pytest -q"], use_sandbox=False)
    assert off is None and "test_sandbox" in why_off


@needs_sandbox
def test_a_python_environment_under_tmp_is_still_there_inside(tmp_path):
    """A checkout cloned into /tmp (as CI does) has its .venv there; the fresh /tmp inside must not hide it,
    and it stays read-only."""
    venv = tmp_path / "clone" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "bin" / "tool").write_text("#!/bin/sh\necho from-the-venv\n")
    (venv / "bin" / "tool").chmod(0o755)
    env = {**sandbox_env(dict(os.environ)), "PATH": f"{venv / 'bin'}:/usr/bin:/bin"}
    argv = SANDBOX.command(["/bin/sh", "-c", f"tool && touch {venv}/x"], writable=[], cwd=Path("/"), env=env)
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env, check=False)
    assert "from-the-venv" in done.stdout, done.stderr
    assert done.returncode != 0 and not (venv / "x").exists()  # shown read-only
    assert venv in sandbox_module.tools_under_tmp(env)
