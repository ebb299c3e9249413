"""Running git: one place for the subprocess call and its errors (git missing, timed out, failed), and
the options that keep git from running commands a repository's own config names (``core.fsmonitor``,
hooks, filter and diff drivers): a model that wrote ``.git/config``, or a repository copied from someone
else, must not get a command run by a read-only tool.

It is also the one place that makes what acode parses independent of the user's and the repository's
config: no colour, no external diff or textconv program, ``a/`` ``b/`` prefixes, unquoted paths, no
attributes file outside the tree (``PLAIN_OUTPUT``, ``_PLAIN_FLAGS``). A change under review must not be able
to hide its own lines from the parser (``color.ui always``, ``diff.noprefix``, ``*.py -diff``)."""

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
# Always: output acode can parse whatever the config says (colour codes would hide every added line).
PLAIN_OUTPUT = (
    "color.ui=never",
    "color.diff=never",
    "color.grep=never",
    "color.status=never",
    "color.branch=never",
    "color.showBranch=never",
    "core.quotePath=false",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.relative=false",
    "diff.suppressBlankEmpty=false",
    "diff.submodule=short",
    "diff.orderFile=/dev/null",
    "diff.srcPrefix=a/",
    "diff.dstPrefix=b/",
    "grep.column=false",
    "log.showSignature=false",
    "log.follow=false",
    "i18n.logOutputEncoding=UTF-8",
)
# For the commands whose content acode reads: no attributes file from the user's or the repository's config
# (``core.attributesFile``), and the size above which git calls any file binary back at its default.
_READING_CONFIG = ("core.attributesFile=/dev/null", "core.bigFileThreshold=512m")
# Flags after the subcommand, for every command whose output acode reads (a caller's own later flag, such
# as ``--color=always`` for the terminal, still wins). ``--text`` is not here: a reader that passes it
# decides binary files by their bytes itself (``acode.review.change.diff_reading``).
_PLAIN_FLAGS = {
    "diff": ("--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"),
    "log": ("--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"),
    "show": ("--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/"),
    "grep": ("--no-color", "--no-textconv"),
}
# Environment variables that change what git prints or which program it runs for a diff.
_UNSET_ENV = ("GIT_EXTERNAL_DIFF", "GIT_DIFF_OPTS", "GIT_PAGER")
# Keys of the repository's own config (local / worktree scope) that name a command to run.
_COMMAND_KEYS = re.compile(
    r"^(filter\..+\.(clean|smudge|process)|diff\..+\.(textconv|command)|diff\.external|merge\..+\.driver"
    r"|core\.(editor|sshcommand|askpass|gitproxy|alternaterefscommand|hookspath|fsmonitor|pager)"
    r"|sequence\.editor|gpg(\..+)?\.program|credential(\..+)?\.helper|pager\..+|alias\..+"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|vcs)|protocol(\..+)?\.allow)$",
    re.IGNORECASE,
)
_NEUTRAL = {
    "clean": "cat",
    "smudge": "cat",
    "textconv": "cat",
    "fsmonitor": "false",
    "hookspath": "/dev/null",
    "pager": "cat",
    "allow": "never",  # protocol.ext.allow always would let a fetch run the ext:: remote's command
}
# A fetch uses git's own safe transports only: ``ext::`` (runs a command), ``fd::`` and any remote helper
# are refused whatever the repository's config allows (GIT_ALLOW_PROTOCOL overrides every
# protocol.*.allow); no submodule is fetched and no maintenance runs after it.
FETCH_PROTOCOLS = ("https", "ssh", "file")
_FETCH_CONFIG = ("protocol.allow=never", *(f"protocol.{name}.allow=always" for name in FETCH_PROTOCOLS),
                 "protocol.ext.allow=never", "protocol.fd.allow=never", "fetch.recurseSubmodules=false",
                 "submodule.recurse=false", "gc.auto=0", "maintenance.auto=false")
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def safe_git(root: Path, *args: str) -> list[str]:
    """``git -c ... <args>``: the argument list for running git in ``root`` without any command the
    repository's config names. A filter or diff driver from the repository becomes ``cat``; an external
    diff or merge driver becomes empty, so git fails loudly instead of running it."""
    command = _subcommand(args)
    reading = command in _PLAIN_FLAGS
    overrides = [*SAFE_CONFIG, *PLAIN_OUTPUT, *(_READING_CONFIG if reading else ()),
                 *_repository_overrides(root)]
    if reading:
        at = args.index(command) + 1
        args = (*args[:at], *_PLAIN_FLAGS[command], *args[at:])
    return ["git", *(part for item in overrides for part in ("-c", item)), *args]


def _subcommand(args: tuple[str, ...]) -> str:
    """The git command in ``args`` (after any ``-c key=value`` of the caller's)."""
    at = 0
    while at < len(args) and args[at] == "-c":
        at += 2
    return args[at] if at < len(args) else ""


def git_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: acode's own) without the variables that change git's output, and without the
    system-wide attributes file."""
    start = os.environ if env is None else env
    return {**{k: v for k, v in start.items() if k not in _UNSET_ENV}, "GIT_ATTR_NOSYSTEM": "1"}


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
            env=git_env(env),
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


def fetchable(url: str) -> bool:
    """An https, ssh or local URL (``user@host:path`` is ssh; a path is local); never ``ext::``, ``fd::``
    or another remote helper (``<transport>::``), nor something git would read as an option."""
    if not url or url.startswith("-") or "::" in url:
        return False
    scheme = _URL_SCHEME.match(url)
    return scheme is None or scheme.group(1).lower() in ("https", "ssh", "git+ssh", "ssh+git", "file")


def fetch(root: Path, url: str, *refspecs: str, options: tuple[str, ...] = (), timeout: float = 300.0
          ) -> subprocess.CompletedProcess[str]:
    """``git fetch <options> -- <url> <refspecs>`` over a safe transport only (``fetchable``)."""
    if not fetchable(url):
        raise GitError("ACODE-GIT-009", f"not fetching from {url!r} in {root}: only https, ssh and local "
                       "repositories are fetched from", hint="set origin's URL to an https or ssh one")
    env = {**os.environ, "GIT_ALLOW_PROTOCOL": ":".join(FETCH_PROTOCOLS)}
    config = [part for item in _FETCH_CONFIG for part in ("-c", item)]
    return run_git(root, *config, "fetch", "--no-recurse-submodules", *options, "--", url, *refspecs,
                   env=env, timeout=timeout, check=False)
