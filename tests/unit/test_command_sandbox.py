"""Issue 50: every command the agent runs for a model runs in the sandbox. In yolo mode with no deny
rules, a scripted model sends the attack strings of the two earlier hostile-input probes (benchmarks/
trust_hostile.py), aimed at a file outside the workspace, the home folder and the repository's hooks and
config: in the sandbox nothing there changes; with ``sandbox: off`` the same commands do change it (so the
check can fail). The folders live under /var/tmp, not /tmp: the sandbox's /tmp is private, and a target
there would be out of reach for that reason alone."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pexpect
import pytest
import yaml
from tests.helpers.repos import make_git_repo

from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.config import Settings, load_settings
from acode.llm.scripted import ScriptedModel
from acode.sandbox import find_sandbox
from acode.tools.builtin import default_registry

SANDBOX, WHY_NOT = find_sandbox()
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")
QUIET = {name: {"enabled": False}
         for name in ("next_speaker", "compression", "loop_detection", "checkpoints")}

# {victim}: a file outside the workspace; {home}: $HOME; {planted}: a file nobody should create
ATTACKS = {
    "array subscript": "declare 'a[$(rm {victim})]=1'",
    "arithmetic subscript": "x='a[$(rm {victim})]'; echo $((x))",
    "env prefix": "env 'BASH_FUNC_ls%%=() {{ rm {victim}; }}' bash -c ls",
    "GIT_EXTERNAL_DIFF": "GIT_EXTERNAL_DIFF='rm {victim} #' git log -p --ext-diff -1",
    "git -c alias": "git -c alias.z='!rm {victim}' z",
    "git -c fsmonitor": "git -c core.fsmonitor='rm {victim}' status",
    "trap": "trap 'rm {victim}' EXIT",
    "| bash": "echo 'rm {victim}' | bash",
    "tee ../x": "echo pwned | tee ../x",
    "find -delete": "find {outside} -delete",
    "sed -i outside": "sed -i s/original/pwned/ {victim}",
    "rm -rf ~/": "rm -rf ~/keep",
    "hook pre-commit": "printf '#!/bin/sh\\ntouch {planted}\\n' > .git/hooks/pre-commit; "
                       "chmod +x .git/hooks/pre-commit",
    "git config hooksPath": "git config core.hooksPath {outside}",
    "append .git/config": "printf '[alias]\\n\\tst = !touch {planted}\\n' >> .git/config",
    "acode config": "printf 'hooks: {{}}\\n' > .acode/config.yml",
}


@pytest.fixture
def place():
    """base/{ws (a git repository with two commits), outside/victim.txt, home/keep/file.txt}."""
    base = Path(tempfile.mkdtemp(prefix="acode-sandbox-test-", dir="/var/tmp"))
    ws, outside, home = base / "ws", base / "outside", base / "home"
    for folder in (ws, outside, home / "keep"):
        folder.mkdir(parents=True)
    (outside / "victim.txt").write_text("original\n")
    (home / "keep" / "file.txt").write_text("mine\n")
    git = ["git", "-c", "user.email=d@e.f", "-c", "user.name=D", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=ws, check=True)
    for n in (1, 2):
        (ws / "a.txt").write_text(f"{n}\n")
        subprocess.run([*git, "add", "-A"], cwd=ws, check=True)
        subprocess.run([*git, "commit", "-qm", f"c{n}"], cwd=ws, check=True)
    (ws / ".acode").mkdir()
    yield base
    shutil.rmtree(base, ignore_errors=True)


def snapshot(base: Path) -> dict[str, object]:
    ws = base / "ws"
    return {
        "victim": (base / "outside" / "victim.txt").read_text() if (base / "outside" / "victim.txt").exists()
        else None,
        "../x": (base / "x").exists(),
        "home": sorted(p.name for p in (base / "home").rglob("*")),
        "hooks": sorted(p.name for p in (ws / ".git" / "hooks").iterdir()),
        ".git/config": (ws / ".git" / "config").read_text(),
        ".acode/config.yml": (ws / ".acode" / "config.yml").exists(),
        "planted": (base / "planted").exists(),
    }


def run_as_model(base: Path, command: str, sandbox: str) -> str:
    ws = base / "ws"
    settings = Settings.model_validate({**QUIET, "sandbox": sandbox})
    model = ScriptedModel([{"tool": "run_shell_command", "arguments": {"command": command}}, "done"])
    session = build_session(settings, ws, SessionOptions(approval_mode="yolo"), model=model,
                            registry=default_registry())
    try:
        result = session.send("go")
    finally:
        session.close()
    step = result.tool_steps()[0]
    assert step.decision == "allowed", step  # yolo, no deny rules: only the sandbox stands in the way
    return step.output


def aimed(command: str, base: Path) -> str:
    return command.format(victim=base / "outside" / "victim.txt", outside=base / "outside",
                          planted=base / "planted")


@needs_sandbox
@pytest.mark.parametrize("mode", ["workspace-write", "off"])
@pytest.mark.parametrize("attack", list(ATTACKS))
def test_an_attack_changes_nothing_outside_the_workspace_nor_hooks_or_config(place, attack, mode,
                                                                           monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    before = snapshot(place)
    output = run_as_model(place, aimed(ATTACKS[attack], place), mode)
    if mode == "off":  # as the user, the same command does change them: the check can fail
        assert snapshot(place) != before, output
        return
    assert snapshot(place) == before, output
    # later git runs outside the sandbox (acode's own commits) find nothing planted either
    subprocess.run(["git", "-c", "user.email=d@e.f", "-c", "user.name=D", "commit", "-q", "--allow-empty",
                    "-m", "x"], cwd=place / "ws", check=True)
    assert not (place / "planted").exists()


@needs_sandbox
def test_inside_no_planted_token_and_no_interface_but_loopback(place, monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_planted_secret_value")
    monkeypatch.setenv("MY_SERVICE_API_KEY", "planted-key")
    monkeypatch.setenv("CI", "true")  # kept: test runners print differently under CI, as the user's CI sees
    output = run_as_model(place, "env; echo NETDEV:; cat /proc/net/dev", "workspace-write")
    env_part, net_part = output.split("\nNETDEV:\n", 1)
    assert "GITHUB_TOKEN" not in env_part and "MY_SERVICE_API_KEY" not in env_part and "PATH=" in env_part
    assert "\nCI=true" in env_part
    interfaces = [line.split(":")[0].strip() for line in net_part.splitlines() if ":" in line
                  and not line.startswith(("Inter", " face", "[exit"))]
    assert interfaces == ["lo"], net_part
    outside = run_as_model(place, "env", "off")  # as the user: the token is there (the check can fail)
    assert "GITHUB_TOKEN=" in outside and "MY_SERVICE_API_KEY=" in outside


@needs_sandbox
def test_a_denied_write_fails_like_a_command_with_a_readable_message(place, monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    output = run_as_model(place, "echo x > ~/keep/new.txt", "workspace-write")
    assert "Read-only file system" in output and "[exit code: 1]" in output
    assert f"[sandbox: read-only file system: {place / 'home' / 'keep' / 'new.txt'}" in output
    assert "sandbox: off in your user settings" in output
    written = run_as_model(place, "echo ok > made.txt && cat made.txt", "workspace-write")
    assert "[exit code: 0]" in written and (place / "ws" / "made.txt").read_text() == "ok\n"


# -- through the CLI: the flag, an untrusted project's setting, no bubblewrap -------------------------

def acode_p(base: Path, command: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    script = base / "script.yml"
    steps = [{"tool": "run_shell_command", "arguments": {"command": command}}, "done"]
    script.write_text(yaml.safe_dump(steps))
    full = dict(os.environ, HOME=str(base / "home"), ACODE_MODEL__SCRIPT=str(script),
                ACODE_NEXT_SPEAKER__ENABLED="false", **(env or {}))
    argv = [sys.executable, "-m", "acode", "-p", "go", "--backend", "scripted", "--approval-mode", "yolo",
            "--json"]
    return subprocess.run([*argv, *args], cwd=base / "ws", env=full, capture_output=True, text=True,
                          timeout=120, stdin=subprocess.DEVNULL, check=False)


def shell_output(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 0, out.stderr
    return next(s["output"] for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool")


@needs_sandbox
def test_an_untrusted_projects_sandbox_off_is_withheld_and_the_users_flag_is_not(place):
    (place / "ws" / ".acode" / "config.yml").write_text("sandbox: off\n")
    victim = place / "outside" / "victim.txt"
    out = acode_p(place, f"rm {victim}")
    assert "(in ., sandboxed)" in shell_output(out) and victim.exists()
    assert "not trusted" in out.stderr and "sandbox.mode: off" in out.stderr
    out = acode_p(place, f"rm {victim}", "--sandbox", "off")  # the user's own flag
    assert "sandboxed" not in shell_output(out) and not victim.exists()


def test_weakening_settings_of_an_untrusted_project_are_withheld(tmp_path):
    (tmp_path / ".acode").mkdir()
    config = tmp_path / ".acode" / "config.yml"
    for text, mode, network in [("sandbox: off", "workspace-write", False),
                                ("sandbox: false", "workspace-write", False),
                                ("sandbox: {mode: 'off', network: true}", "workspace-write", False),
                                ("sandbox: {network: yes}", "workspace-write", False),
                                ("sandbox: read-only", "read-only", False)]:
        config.write_text(text + "\n")
        untrusted = load_settings(tmp_path, trust=False)
        assert (untrusted.sandbox.mode, untrusted.sandbox.network) == (mode, network), text
        assert bool(untrusted.trust.withheld) == (mode != "read-only"), (text, untrusted.trust.withheld)
    config.write_text("sandbox: {mode: 'off', network: true}\n")
    trusted = load_settings(tmp_path, trust=True)
    assert (trusted.sandbox.mode, trusted.sandbox.network) == ("off", True)


def test_a_later_layers_short_form_keeps_an_earlier_layers_network(tmp_path):
    user = Path(os.environ["ACODE_CONFIG_HOME"]) / "config.yml"
    user.write_text("sandbox: {network: true}\n")
    (tmp_path / ".acode").mkdir()
    (tmp_path / ".acode" / "config.yml").write_text("sandbox: read-only\n")
    settings = load_settings(tmp_path, trust=False)
    assert (settings.sandbox.mode, settings.sandbox.network) == ("read-only", True)


def test_config_show_says_which_protection_is_active(tmp_path):
    make_git_repo(tmp_path / "repo")
    show = [sys.executable, "-m", "acode", "config", "show"]
    data = json.loads(subprocess.run([*show, "--json"], cwd=tmp_path / "repo", capture_output=True, text=True,
                                     check=True).stdout)
    assert data["sandbox"] == {"mode": "workspace-write", "network": False}
    assert data["sandbox_in_force"]["active"] is (SANDBOX is not None)
    off = subprocess.run(show, cwd=tmp_path / "repo", capture_output=True, text=True, check=True,
                         env=dict(os.environ, ACODE_SANDBOX__MODE="off")).stdout
    assert "# sandbox of the model's commands: off (commands run as you" in off


def test_without_bubblewrap_one_line_says_so_and_commands_run_under_the_rules(place, tmp_path):
    tools = tmp_path / "bin"  # a PATH with what the run needs, and no bwrap
    tools.mkdir()
    for name in ("bash", "git", "touch", "env"):
        (tools / name).symlink_to(shutil.which(name))
    out = acode_p(place, "touch made.txt", env={"PATH": str(tools)})
    assert "(in .)" in shell_output(out) and (place / "ws" / "made.txt").exists()
    lines = [line for line in out.stderr.splitlines() if "no sandbox for the model's commands" in line]
    assert len(lines) == 1 and "bubblewrap (bwrap) is not installed" in lines[0]
    assert "apt install bubblewrap" in lines[0]


@needs_sandbox
def test_the_chat_header_names_the_sandbox_and_the_users_own_commands_stay_outside(place):
    script = place / "script.yml"
    steps = [{"tool": "run_shell_command", "arguments": {"command": "touch by-model.txt"}}, "tried it"]
    script.write_text(yaml.safe_dump(steps))
    env = dict(os.environ, HOME=str(place / "home"), ACODE_MODEL__SCRIPT=str(script), TERM="xterm",
               ACODE_NEXT_SPEAKER__ENABLED="false", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="200")
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--backend", "scripted", "--sandbox", "read-only",
                                           "--approval-mode", "yolo"], cwd=str(place / "ws"), env=env,
                          encoding="utf-8", timeout=60, dimensions=(40, 200))
    child.expect("sandbox: read-only")
    child.expect("acode>")
    child.sendline("!touch by-user.txt")  # typed by the user: as they run it, outside the sandbox
    child.expect("exit code: 0")
    child.expect("acode>")
    child.sendline("touch a file")
    child.expect("tried it")
    child.expect("acode>")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    assert (place / "ws" / "by-user.txt").exists() and not (place / "ws" / "by-model.txt").exists()


def _running(argv: list[str]) -> bool:
    wanted = "\0".join(argv) + "\0"
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_text() == wanted:
                return True
        except OSError:
            continue
    return False


@needs_sandbox
def test_nothing_a_sandboxed_command_left_running_outlives_it(place, monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    output = run_as_model(place, "sleep 987654 & echo started", "workspace-write")
    assert "started" in output and "[exit code: 0]" in output
    assert not _running(["sleep", "987654"])  # its PID namespace ended with it


@needs_sandbox
def test_a_connection_fails_at_once_with_a_note_naming_the_setting(place, monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(0.5)
    port = server.getsockname()[1]
    started = time.monotonic()
    connect = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=30)"
    output = run_as_model(place, f"{sys.executable} -c \"{connect}\"", "workspace-write")
    assert time.monotonic() - started < 20  # refused, not waited out
    assert "ConnectionRefusedError" in output and "[exit code: 1]" in output
    assert "[sandbox: no network inside" in output and "sandbox.network: true" in output
    with pytest.raises(TimeoutError):
        server.accept()  # nothing reached the host's server
    server.close()


@needs_sandbox
def test_pip_install_fails_with_a_note_naming_the_setting(place, monkeypatch):
    monkeypatch.setenv("HOME", str(place / "home"))
    # the index is this machine's loopback (inside: the sandbox's own, where nothing listens)
    pip = (f"{sys.executable} -m pip install --isolated --index-url http://127.0.0.1:9/simple --retries 1 "
           "--timeout 5 acode-no-such-package")
    output = run_as_model(place, pip, "workspace-write")
    assert "[exit code: 1]" in output
    assert "[sandbox: no network inside" in output and "sandbox.network: true" in output
