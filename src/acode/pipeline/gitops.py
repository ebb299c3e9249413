"""Git facts a run needs, read without touching the user's index: the start commit, dirty paths, and
everything changed since the start (untracked new files included) via a throw-away index file."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from acode.gitcmd import run_git
from acode.pipeline.stops import RunError
from acode.review.change.diff_reading import truncate_diff
from acode.review.models import ChangedFile

# The run's own records live in .acode/; they are never part of "the changes".
EXCLUDE = ":(exclude).acode"


def git(root: Path, *args: str, env: dict[str, str] | None = None, check: bool = True) -> str:
    return run_git(root, *args, env=env, timeout=120, check=check).stdout


def require_repository(root: Path) -> str:
    """The HEAD commit of the repository at ``root``; a clear error when there is none."""
    if git(root, "rev-parse", "--is-inside-work-tree", check=False).strip() != "true":
        raise RunError(
            "ACODE-RUN-002",
            f"{root} is not a git repository",
            hint="run `git init && git add -A && git commit -m start` first: acode run records the start "
                 "commit",
        )
    head = git(root, "rev-parse", "--verify", "-q", "HEAD", check=False).strip()
    if not head:
        raise RunError(
            "ACODE-RUN-005", f"the repository at {root} has no commit yet", hint="commit once first"
        )
    return head


def current_branch(root: Path) -> str:
    return git(root, "rev-parse", "--abbrev-ref", "HEAD", check=False).strip()


def dirty_paths(root: Path) -> list[str]:
    out = git(root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--", ".", EXCLUDE)
    return [entry[3:] for entry in out.split("\0") if len(entry) > 3]


def untracked_files(root: Path) -> list[str]:
    out = git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", ".", EXCLUDE)
    return sorted(p for p in out.split("\0") if p)


@contextmanager
def _snapshot_index(root: Path) -> Iterator[dict[str, str]]:
    """An environment whose GIT_INDEX_FILE stages the whole working tree, in a temporary copy."""
    real_index = Path(git(root, "rev-parse", "--git-path", "index").strip())
    if not real_index.is_absolute():
        real_index = root / real_index
    with tempfile.TemporaryDirectory(prefix="acode-index-") as tmp:
        index = Path(tmp) / "index"
        if real_index.is_file():
            shutil.copyfile(real_index, index)  # keeps the stat cache: no re-hashing of unchanged files
        env = {**os.environ, "GIT_INDEX_FILE": str(index)}
        git(root, "add", "-A", "--", ".", EXCLUDE, env=env)
        yield env


def diff_since(root: Path, base: str) -> str:
    """The unified diff of the working tree (new files included) against ``base``."""
    with _snapshot_index(root) as env:
        return git(root, "diff", "--cached", "--no-renames", "--no-color", base, "--", ".", EXCLUDE, env=env)


def changes_since(root: Path, base: str) -> list[ChangedFile]:
    """Files new, modified or deleted since ``base``, with added/removed line counts."""
    with _snapshot_index(root) as env:
        return _changes(root, base, env)


def changed_files(root: Path, base: str, *, context_lines: int = 3, max_diff_chars: int = 10_000
                  ) -> list[ChangedFile]:
    """Each changed file with its own unified diff against ``base`` (cut at ``max_diff_chars`` for the model,
    the whole one kept for the evidence), as the review reads a change."""
    out = []
    with _snapshot_index(root) as env:
        for change in _changes(root, base, env):
            diff = git(root, "diff", "--cached", "--no-renames", "--no-color", f"-U{context_lines}", base,
                       "--", change.path, env=env)
            text, cut = truncate_diff(diff, max_diff_chars)
            binary = "Binary files" in diff and "@@" not in diff
            out.append(change.model_copy(update={
                "change_type": "binary" if binary else change.change_type, "diff": "" if binary else text,
                "truncated": cut, "full_diff": diff if cut and not binary else ""}))
    return out


def _changes(root: Path, base: str, env: dict[str, str]) -> list[ChangedFile]:
    status = git(
        root, "diff", "--cached", "--no-renames", "--name-status", "-z", base, "--", ".", EXCLUDE, env=env
    )
    numstat = git(
        root, "diff", "--cached", "--no-renames", "--numstat", "-z", base, "--", ".", EXCLUDE, env=env
    )
    counts: dict[str, tuple[int, int]] = {}
    for record in numstat.split("\0"):
        parts = record.split("\t")
        if len(parts) == 3:
            added, removed, path = parts
            counts[path] = (int(added) if added.isdigit() else 0, int(removed) if removed.isdigit() else 0)
    fields = [f for f in status.split("\0") if f]
    kinds = {"A": "added", "D": "deleted"}
    out = []
    for code, path in zip(fields[0::2], fields[1::2]):
        added, removed = counts.get(path, (0, 0))
        out.append(ChangedFile(path=path, change_type=kinds.get(code[0], "modified"),  # type: ignore[arg-type]
                               additions=added, deletions=removed))
    return out


def fingerprint(root: Path, base: str) -> dict[str, str]:
    """path -> content id of every file that differs from ``base`` (to tell which files a step changed)."""
    with _snapshot_index(root) as env:
        raw = git(
            root,
            "diff",
            "--cached",
            "--no-renames",
            "--raw",
            "-z",
            "--abbrev=40",
            base,
            "--",
            ".",
            EXCLUDE,
            env=env,
        )
    fields = [f for f in raw.split("\0") if f]
    out = {}
    for meta, path in zip(fields[0::2], fields[1::2]):
        parts = meta.split()
        out[path] = parts[3] if len(parts) >= 4 else ""
    return out


def files_changed_between(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))
