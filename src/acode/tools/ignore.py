"""Which files tools see: .gitignore (nested files too: globs, ``**``, ``!`` negation, dir-only ``/``),
``.acodeignore`` (same syntax, read after .gitignore so it can override), ``.git/info/exclude``, and
``.git`` and ``.acode`` always skipped (acode's own state: the database, checkpoint copies, full tool
outputs, run records are never listed or searched; read_file still opens a path given to it). In a git
repository the file set comes from ``git ls-files`` (exact git semantics); the pure-Python matcher is
the fallback and also serves single-directory listings."""

from __future__ import annotations

import logging
import os
import re
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acode.gitcmd import safe_git
from acode.tools.globmatch import glob_to_regex

log = logging.getLogger("acode.tools.ignore")

ACODEIGNORE = ".acodeignore"
ALWAYS_SKIPPED = frozenset({".git", ".acode"})
ListingMode = Literal["auto", "git", "python"]


class GitListingError(RuntimeError):
    pass


@dataclass(frozen=True)
class Rule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    base: str  # folder of the ignore file, relative to the root ("" at the root)


def parse_rule(line: str, base: str) -> Rule | None:
    line = line.rstrip("\n").rstrip("\r")
    if not line or line.startswith("#"):
        return None
    while line.endswith(" ") and not line.endswith("\\ "):
        line = line[:-1]
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    body = glob_to_regex(line.lstrip("/"), braces=False)
    prefix = "^" if anchored else "^(?:.*/)?"
    return Rule(re.compile(prefix + body + "$"), negate, dir_only, base)


class IgnoreRules:
    """Rules gathered from ignore files under ``root``, loaded lazily per folder."""

    def __init__(
        self, root: Path, filenames: tuple[str, ...] = (".gitignore", ACODEIGNORE), git_exclude: bool = True
    ):
        self.root = Path(root)
        self.filenames = filenames
        self._cache: dict[str, list[Rule]] = {}
        self._root_extra: list[Rule] = []
        if git_exclude:
            self._root_extra = self._read(self.root / ".git" / "info" / "exclude", "")

    @staticmethod
    def _read(path: Path, base: str) -> list[Rule]:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        return [rule for line in text.splitlines() if (rule := parse_rule(line, base))]

    def rules_in(self, folder: str) -> list[Rule]:
        if folder not in self._cache:
            rules = list(self._root_extra) if folder == "" else []
            for name in self.filenames:
                rules += self._read(self.root / folder / name, folder)
            self._cache[folder] = rules
        return self._cache[folder]

    def _decide(self, rel: str, is_dir: bool) -> bool:
        """Ignored by its own name (ancestors not considered): the last matching rule wins, rules of
        deeper folders come later."""
        if rel.rsplit("/", 1)[-1] in ALWAYS_SKIPPED:
            return True
        parts = rel.split("/")
        ignored = False
        for depth in range(len(parts)):
            folder = "/".join(parts[:depth])
            sub = rel if not folder else rel[len(folder) + 1 :]
            for rule in self.rules_in(folder):
                if rule.dir_only and not is_dir:
                    continue
                if rule.regex.match(sub):
                    ignored = not rule.negate
        return ignored

    def is_ignored(self, rel: str, is_dir: bool) -> bool:
        """``rel`` is POSIX, relative to the root. A file inside an ignored folder is ignored (git
        cannot re-include it either)."""
        rel = rel.strip("/")
        if not rel or rel == ".":
            return False
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            if self._decide("/".join(parts[:depth]), True):
                return True
        return self._decide(rel, is_dir)


def _under(start: str, rel: str) -> str:
    return rel if start in ("", ".") else f"{start}/{rel}"


def _keep_file(root: Path, rel: str, symlinks: bool) -> bool:
    """Regular files; symlinks too (when ``symlinks``) if they lead to a file inside the root."""
    try:
        mode = os.lstat(root / rel).st_mode
    except OSError:
        return False
    if stat.S_ISLNK(mode):
        real = os.path.realpath(root / rel)
        return symlinks and os.path.isfile(real) and (real + os.sep).startswith(str(root) + os.sep)
    return stat.S_ISREG(mode)


def walk_python(root: Path, start: str = ".") -> Iterator[str]:
    rules = IgnoreRules(root)
    top = root / start
    for folder, dirs, files in os.walk(top):
        rel_folder = Path(folder).relative_to(root).as_posix()
        rel_folder = "" if rel_folder == "." else rel_folder
        dirs[:] = sorted(d for d in dirs if not rules.is_ignored(_under(rel_folder, d), True))
        for name in sorted(files):
            rel = _under(rel_folder, name)
            if not rules.is_ignored(rel, False):
                yield rel


def list_git(root: Path, start: str = ".", timeout: float = 30.0) -> list[str]:
    """Tracked and untracked-but-not-ignored files under ``start``, then .acodeignore applied."""
    try:
        proc = subprocess.run(
            safe_git(root / start, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."),
            cwd=root / start,
            check=False,
            capture_output=True,
            timeout=timeout,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitListingError(str(exc)) from exc
    if proc.returncode != 0:
        raise GitListingError(proc.stderr.decode("utf-8", errors="replace").strip() or "git ls-files failed")
    acode_rules = IgnoreRules(root, filenames=(ACODEIGNORE,), git_exclude=False)
    names = {_under(start, p) for p in proc.stdout.decode("utf-8", errors="surrogateescape").split("\0") if p}
    return sorted(rel for rel in names if not acode_rules.is_ignored(rel, False))


def candidate_files(
    root: Path, start: str = ".", mode: ListingMode = "auto", *, symlinks: bool = True
) -> list[str]:
    """Files (POSIX paths relative to ``root``) under ``start`` that tools may look at, sorted.
    Symlinks are kept only if they lead to a file inside the root, and not at all without ``symlinks``."""
    root = Path(os.path.realpath(root))
    start = start.strip("/") or "."
    if mode in ("auto", "git") and (mode == "git" or _in_git_work_tree(root)):
        try:
            return [rel for rel in list_git(root, start) if _keep_file(root, rel, symlinks)]
        except GitListingError as exc:
            if mode == "git":
                raise
            log.warning("git ls-files failed in %s (%s); using the built-in ignore matcher", root, exc)
    return sorted(rel for rel in walk_python(root, start) if _keep_file(root, rel, symlinks))


def _in_git_work_tree(root: Path) -> bool:
    for folder in (root, *root.parents):
        if (folder / ".git").exists():
            return True
    return False
