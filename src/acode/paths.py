"""Where things live: the user's config and cache folders, the project root and its ``.acode`` folder."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path


def user_config_dir() -> Path:
    """``~/.config/acode`` (``ACODE_CONFIG_HOME`` overrides, which tests use)."""
    override = os.environ.get("ACODE_CONFIG_HOME")
    return Path(override) if override else Path.home() / ".config" / "acode"


def user_cache_dir() -> Path:
    override = os.environ.get("ACODE_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("acode"))


def find_project_root(start: Path | None = None) -> Path:
    """The nearest folder upwards holding ``.acode``, looking no higher than the git top level; else the
    git top level, else ``start`` itself. A ``.acode`` in a folder anyone may write to (``/tmp``) is not
    taken: another user could have put it there, and it captured every project below it."""
    here = (start or Path.cwd()).resolve()
    top = _git_toplevel(here)
    for folder in (here, *here.parents):
        if (folder / ".acode").is_dir() and folder != Path.home() and not _anyone_may_write(folder):
            return folder
        if folder == top:
            break
    return top or here


def _git_toplevel(here: Path) -> Path | None:
    try:
        out = subprocess.run(
            ["git", "-c", "core.fsmonitor=false", "rev-parse", "--show-toplevel"],
            check=False,
            cwd=here,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out.stdout.strip()).resolve() if out.returncode == 0 and out.stdout.strip() else None


def _anyone_may_write(folder: Path) -> bool:
    try:
        return bool(folder.stat().st_mode & 0o002)
    except OSError:
        return False


@dataclass(frozen=True)
class ProjectPaths:
    root: Path

    @property
    def acode_dir(self) -> Path:
        return self.root / ".acode"

    @property
    def config_file(self) -> Path:
        return self.acode_dir / "config.yml"

    @property
    def db_file(self) -> Path:
        return self.acode_dir / "acode.db"

    @property
    def commands_dir(self) -> Path:
        return self.acode_dir / "commands"

    @property
    def agents_dir(self) -> Path:
        return self.acode_dir / "agents"

    @property
    def extensions_dir(self) -> Path:
        return self.acode_dir / "extensions"

    @property
    def plans_dir(self) -> Path:
        return self.acode_dir / "plans"

    @property
    def outputs_dir(self) -> Path:
        """Full tool outputs that were cut before reaching the model."""
        return self.acode_dir / "outputs"


# What acode writes into a project's .acode/ while it works. Settings, custom commands, extensions and
# agent definitions stay committable; the rest must never be committed by accident (it holds session
# histories, tool outputs and file copies).
RUNTIME_IGNORE = """\
# Written by acode: its runtime files, never to be committed (settings, commands/, extensions/ and
# agent definitions in agents/*.md are yours to commit).
acode.db
acode.db-*
chat_history
outputs/
runs/
checkpoints/
logs/
plans/
agents/tasks/
agents/plans/
agents/logs/
agents/workspace/
agents/locks/
"""


def ensure_runtime_ignore(acode_dir: Path) -> None:
    """Give a project's ``.acode`` folder its own ``.gitignore`` for acode's runtime files (once; a file
    already there is the user's and left alone)."""
    if acode_dir.name != ".acode":
        return
    try:
        acode_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(acode_dir / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return  # exists already (or the folder is read-only: nothing to protect then)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(RUNTIME_IGNORE)
