"""acode as a user runs it, on the scripted model: one-shot (`run_cli`) or the chat in a terminal
(`spawn_chat`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pexpect
import yaml

ACODE = [sys.executable, "-m", "acode"]
PROMPT = "acode>"  # prompt_toolkit draws the trailing space as a cursor move


def cli_env(script: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "ACODE_MODEL__SCRIPT": str(script),
            # the next-speaker check would ask the scripted model too; it has its own tests
            "ACODE_NEXT_SPEAKER__ENABLED": "false",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm",
            "COLUMNS": "120",
        }
    )
    return env


def write_script(folder: Path, steps: list) -> Path:
    path = folder.parent / f"{folder.name}-script.yml"
    path.write_text(yaml.safe_dump(steps))
    return path


def run_cli(repo: Path, script: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*ACODE, *args, "--backend", "scripted"],
        check=False,
        cwd=repo,
        env=cli_env(script),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def spawn_chat(repo: Path, script: Path, *args: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "acode", "--backend", "scripted", *args],
        cwd=str(repo),
        env=cli_env(script),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )
    child.expect("session")
    child.expect(PROMPT)
    return child
