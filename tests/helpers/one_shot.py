"""`acode -p` on the real embedded 0.5B model, in its own process exactly as a user runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REAL_MODEL = "qwen2.5-coder-0.5b"


def run_one_shot(repo: Path, prompt: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    """`acode -p PROMPT --approval-mode yolo --json` on the real embedded model, in its own process
    exactly as a user runs it."""
    argv = [sys.executable, "-m", "acode", "-p", prompt, "--approval-mode", "yolo", "--model", REAL_MODEL,
            "--backend", "embedded", "--json"]
    return subprocess.run(argv, check=False, cwd=repo, env=env, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def fix_one_shot(repo: Path, prompt: str, **settings: str) -> dict:
    """``run_one_shot`` of a fixing request where `python` runs the project's pytest, with ``settings`` as
    extra ``ACODE_*`` variables: its JSON result."""
    import json

    env = dict(os.environ) | settings
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # `python` has pytest
    env["ACODE_MODEL__TIMEOUT_SECONDS"] = "900"
    out = run_one_shot(repo, prompt, env, timeout=1200)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    return json.loads(out.stdout) | {"returncode": out.returncode}
