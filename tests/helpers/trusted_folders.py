"""acode run in a folder whose trust is being decided, with a scripted model when given one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

ACODE = [sys.executable, "-m", "acode"]


def run(
    repo: Path, *args: str, script: list | None = None, env: dict | None = None
) -> subprocess.CompletedProcess:
    full = dict(os.environ, ACODE_NEXT_SPEAKER__ENABLED="false", COLUMNS="250", **(env or {}))
    if script is not None:
        path = repo.parent / "trust-script.yml"
        path.write_text(yaml.safe_dump(script))
        full["ACODE_MODEL__SCRIPT"] = str(path)
    return subprocess.run(
        [*ACODE, *args],
        cwd=repo,
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )
