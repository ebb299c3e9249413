"""Running git: one place for the subprocess call and its errors (git missing, timed out, failed), and
the options that keep git from running commands a repository's own config names (``core.fsmonitor``,
hooks, filter and diff drivers): a model that wrote ``.git/config``, or a repository copied from someone
else, must not get a command run by a read-only tool."""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from acode.errors import AcodeError


class GitError(AcodeError):
    pass


# Always: no fsmonitor daemon or hook command, no pager, no signing program.
SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "commit.gpgSign=false",
    "tag.gpgSign=false",
)
# Keys of the repository's own config (local / worktree scope) that name a command to run.
_COMMAND_KEYS = re.compile(
    r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|diff\.external|merge\..+\.driver"
    r"|core\.(editor|sshcommand|askpass|gitproxy|alternaterefscommand|hookspath|fsmonitor|pager)"
    r"|sequence\.editor|gpg(\..+)?\.program|credential(\..+)?\.helper|pager\..+|alias\..+"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|vcs))$",
    re.IGNORECASE,
)
_NEUTRAL = {
    "clean": "cat",
    "smudge": "cat",
    "textconv": "cat",
    "fsmonitor": "false",
    "hookspath": "/dev/null",
    "pager": "cat",
}


def safe_git(root: Path, *args: str) -> list[str]:
    """``git -c ... <args>``: the argument list for running git in ``root`` without any command the
    repository's config names. A filter or diff driver from the repository becomes ``cat``; an external
    diff or merge driver becomes empty, so git fails loudly instead of running it."""
    overrides = [*SAFE_CONFIG, *_repository_overrides(root)]
    return ["git", *(part for item in overrides for part in ("-c", item)), *args]


def _repository_overrides(root: Path) -> list[str]:
    config = Path(root) / ".git" / "config"
    try:
        stamp = config.stat().st_mtime_ns if config.is_file() else None
    except OSError:
        stamp = None
    if stamp is None:  # a worktree or a subfolder: read it every time
        return list(_cached_overrides(str(root), None))
    return list(_cached_overrides(str(root), stamp))


@lru_cache(maxsize=64)
def _cached_overrides(root: str, stamp: int | None) -> tuple[str, ...]:
    return tuple(read_overrides(Path(root)))


def read_overrides(root: Path) -> list[str]:
    """The ``key=neutral`` overrides for the keys of the repository's local and worktree config files that
    name commands, read now (reading config runs nothing; ``safe_git`` caches them until the file
    changes)."""
    try:
        done = subprocess.run(
            ["git", "config", "--show-scope", "--name-only", "--list"],
            cwd=root,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=30,
            check=False,
            env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
        )
    except (OSError, subprocess.SubprocessError):
        return []
    overrides = []
    for line in done.stdout.splitlines():
        scope, _, key = line.partition("\t")
        if scope in ("local", "worktree") and _COMMAND_KEYS.match(key):
            last = key.rsplit(".", 1)[-1].lower()
            overrides.append(f"{key}={_NEUTRAL.get(last, '')}")
    return list(dict.fromkeys(overrides))


def run_git(
    root: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60.0, check: bool = True
) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(
            safe_git(root, *args),
            cwd=root,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            encoding="utf-8",
            errors="replace",
            check=False,
        )
    except FileNotFoundError:
        raise GitError(
            "ACODE-GIT-001", "git is not installed (no 'git' on PATH)", hint="install git and try again"
        ) from None
    except subprocess.TimeoutExpired:
        raise GitError(
            "ACODE-GIT-007", f"'git {' '.join(args)}' took longer than {timeout:g} s in {root}"
        ) from None
    if check and done.returncode != 0:
        raise GitError(
            "ACODE-GIT-006", f"'git {' '.join(args)}' failed in {root}: {done.stderr.strip()[:300]}"
        )
    return done
