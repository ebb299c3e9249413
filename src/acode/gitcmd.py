"""Running git: one place for the subprocess call and its errors (git missing, timed out, failed)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from acode.errors import AcodeError


class GitError(AcodeError):
    pass


def run_git(
    root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60.0, check: bool = True
) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, env=env, timeout=timeout,
            encoding="utf-8", errors="replace", check=False,
        )
    except FileNotFoundError:
        raise GitError(
            "ACODE-GIT-001", "git is not installed (no 'git' on PATH)", hint="install git and try again"
        ) from None
    except subprocess.TimeoutExpired:
        raise GitError("ACODE-GIT-007", f"'git {' '.join(args)}' took longer than {timeout:g} s in {root}") from None
    if check and done.returncode != 0:
        raise GitError("ACODE-GIT-006", f"'git {' '.join(args)}' failed in {root}: {done.stderr.strip()[:300]}")
    return done
