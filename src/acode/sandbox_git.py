"""What a sandboxed run must not read of the checkout's git folder: its configuration and credentials.

In CI the checkout's own ``.git/config`` holds the job's token (actions/checkout persists
``http.<url>.extraheader AUTHORIZATION: basic <base64>``; from v6 in a file under ``$RUNNER_TEMP`` that
``.git/config`` includes with ``includeIf``), and submodules' configurations get the same header. Code under
review that reads them could quote the token in the report. Inside the sandbox each configuration file of
the checkout shows only its ``[core]`` and ``[extensions]`` sections (git still works on the repository),
every file it includes and every ``*credential*`` file of the git folder shows empty. Your own git
configuration (``~/.gitconfig``, ``~/.config/git/config``) keeps only who you are and git's defaults
(``[user]``, ``[init]``, ``[safe]``, ``[core]``, ``[extensions]``): a CI job's ``url.<token>.insteadOf`` or
global extraheader stays out too.

``git_dirs(checkout)`` finds the git folders (a worktree's own and the common one); ``hidden_git_files``
returns (path, replacement) pairs the sandbox binds read-only over the real files.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import os
import re
import shutil
import tempfile
from pathlib import Path

_SECTION = re.compile(r"^\s*\[\s*([A-Za-z0-9.-]+)")  # a section header: [core], [includeIf "gitdir:..."]
_KEPT_SECTIONS = ("core", "extensions")  # what git needs to read the repository; no URL, header or helper
# of your own git configuration also who you are and the defaults a test making a repository relies on
_KEPT_USER_SECTIONS = (*_KEPT_SECTIONS, "user", "init", "safe")
_INCLUDE_PATH = re.compile(r"^\s*path\s*=\s*(.*?)\s*$", re.IGNORECASE)


def git_dirs(checkout: Path) -> list[Path]:
    """The git folders of ``checkout``: ``.git`` itself, or the folder a ``.git`` file names (a worktree,
    a submodule) and the common folder it shares (``commondir``). Empty when there is none."""
    dot_git = checkout / ".git"
    if dot_git.is_dir():
        found = [dot_git]
    elif dot_git.is_file():
        text = dot_git.read_text(errors="replace").strip()
        if not text.startswith("gitdir:"):
            return []
        found = [(checkout / text.removeprefix("gitdir:").strip()).resolve()]
    else:
        return []
    common = found[0] / "commondir"
    if common.is_file():
        found.append((found[0] / common.read_text(errors="replace").strip()).resolve())
    return [d for d in dict.fromkeys(found) if d.is_dir()]


def hidden_git_files(checkout: Path) -> list[tuple[Path, Path]]:
    """(file of ``checkout``'s git folders, what to show over it inside the sandbox): each configuration
    file reduced to its core sections, each included or credentials file replaced by an empty one."""
    hidden: dict[Path, Path] = {}
    for git_dir in git_dirs(checkout):
        configs = [git_dir / "config", git_dir / "config.worktree",
                   *git_dir.glob("worktrees/*/config.worktree"), *git_dir.glob("modules/**/config")]
        for config in configs:
            if not config.is_file() or config in hidden:
                continue
            text = config.read_text(errors="replace")
            hidden[config] = _shown_file(_core_sections(text))
            for included in _included_files(text, config.parent):
                hidden.setdefault(included, _shown_file(""))
        for path in git_dir.iterdir():
            if "credential" in path.name.lower() and path.is_file():
                hidden.setdefault(path, _shown_file(""))
    for config in _user_configs():  # CI jobs put tokens there too (``url.<token>.insteadOf``, extraheader)
        text = config.read_text(errors="replace")
        hidden[config] = _shown_file(_core_sections(text, _KEPT_USER_SECTIONS))
        for included in _included_files(text, config.parent):
            hidden.setdefault(included, _shown_file(""))
    return list(hidden.items())


def _user_configs() -> list[Path]:
    """Your global git configuration files (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``)."""
    home = Path(os.path.expanduser("~"))
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [path for path in (home / ".gitconfig", xdg / "git" / "config") if path.is_file()]


def _core_sections(config: str, sections: tuple[str, ...] = _KEPT_SECTIONS) -> str:
    """The ``sections`` (``[core]`` and ``[extensions]``) of a git configuration file, nothing else."""
    kept, keep = [], False
    for line in config.splitlines():
        header = _SECTION.match(line)
        if header:
            keep = header.group(1).lower() in sections
        if keep:
            kept.append(line)
    return "\n".join(kept) + "\n" if kept else ""


def _included_files(config: str, base: Path) -> list[Path]:
    """The files ``include.path`` / ``includeIf.<condition>.path`` name, whatever the condition."""
    found, including = [], False
    for line in config.splitlines():
        header = _SECTION.match(line)
        if header:
            including = header.group(1).lower() in ("include", "includeif")
            continue
        value = _INCLUDE_PATH.match(line) if including else None
        if value and value.group(1):
            path = Path(os.path.expanduser(value.group(1).strip('"')))
            path = path if path.is_absolute() else base / path
            if path.is_file():
                found.append(path)
    return found


def _shown_file(text: str) -> Path:
    """A read-only file holding ``text``, kept until acode exits (one per distinct text)."""
    path = _folder() / hashlib.sha256(text.encode()).hexdigest()[:16]
    if not path.exists():
        path.write_text(text)
        path.chmod(0o444)
    return path


@functools.cache
def _folder() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="acode-sandbox-git-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder
