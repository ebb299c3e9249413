"""A change read from git in one pass: one ``git diff`` for every file, not one per file (20,000 files
are one process, not 20,000), each file's part split off at its header.

A file is binary by its bytes (a NUL in the first 8000, git's own test), never by what git says: git
trusts ``.gitattributes`` (``*.py -diff``, ``binary``), ``core.attributesFile`` and
``core.bigFileThreshold``, which the change under review or a handed-over repository's config can set
to hide its Python files from every check. So the diff is read with ``--text`` and the bytes decide.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from acode.gitblobs import blob_heads
from acode.gitcmd import run_git
from acode.review.models import ChangedFile

BINARY_PROBE = 8000  # bytes git looks at (FIRST_FEW_BYTES in git's xdiff-interface.c)
_NO_OBJECT = "0" * 40
_BLOB_MODES = ("100644", "100755", "120000")
# More binary paths than this are not left out of the one diff by pathspec (the command line would grow
# too long); their text is read and dropped instead.
_MAX_EXCLUDED = 200


@dataclass(frozen=True)
class FilePair:
    status: str  # git's letter: A, M, D, R, T ...
    path: str
    old_path: str | None  # renames and copies
    old_mode: str
    new_mode: str
    old_oid: str
    new_oid: str


def is_blob(oid: str, mode: str) -> bool:
    """A side of a pair that git stores as a blob (not absent, a submodule or the working tree)."""
    return mode in _BLOB_MODES and oid != _NO_OBJECT


def is_binary(head: bytes) -> bool:
    return b"\0" in head[:BINARY_PROBE]


def changed_files(root: Path, revs: list[str], max_chars: int, context_lines: int) -> list[ChangedFile]:
    """Each file changed between ``revs`` (one revision: against the working tree), with its diff."""
    pairs = file_pairs(root, revs)
    binary = _binary_paths(root, pairs)
    patches = _patches(root, revs, pairs, binary, context_lines)
    files = []
    for pair in pairs:
        whole = "" if pair.path in binary else patches.get(pair.path, "")
        added, deleted = count_lines(whole)
        diff, cut = truncate_diff(whole, max_chars)
        change = {"A": "added", "D": "deleted", "R": "renamed", "C": "added"}.get(pair.status, "modified")
        files.append(ChangedFile(
            path=pair.path, old_path=pair.old_path if pair.status == "R" else None,
            change_type="binary" if pair.path in binary else change,  # type: ignore[arg-type]
            additions=added, deletions=deleted, diff=diff, truncated=cut, full_diff=whole if cut else "",
        ))
    return files


def file_pairs(root: Path, revs: list[str]) -> list[FilePair]:
    """The changed files between ``revs`` as git's raw diff lists them (blob ids and modes of each side)."""
    fields = run_git(root, "diff", "--raw", "-z", "-M", "--no-abbrev", *revs).stdout.split("\0")
    pairs = []
    i = 0
    while i < len(fields) and fields[i].startswith(":"):
        old_mode, new_mode, old_oid, new_oid, status = fields[i][1:].split(" ")
        if status[0] in "RC":
            old, path = fields[i + 1], fields[i + 2]
            i += 3
        else:
            old, path = None, fields[i + 1]
            i += 2
        pairs.append(FilePair(status[0], path, old, old_mode, new_mode, old_oid, new_oid))
    return pairs


def _binary_paths(root: Path, pairs: list[FilePair]) -> set[str]:
    """The paths whose old or new content has a NUL in its first bytes: blobs read from git, a side
    that is the working tree (no object yet) read from the file."""
    sides = [(p.old_oid, p.old_mode) for p in pairs] + [(p.new_oid, p.new_mode) for p in pairs]
    oids = [oid for oid, mode in sides if is_blob(oid, mode)]
    heads = blob_heads(root, oids, BINARY_PROBE)
    binary = set()
    for pair in pairs:
        sides = [heads.get(pair.old_oid, b""), heads.get(pair.new_oid, b"")]
        if pair.new_oid == _NO_OBJECT and pair.new_mode in _BLOB_MODES:
            sides.append(file_head(root / pair.path))
        if any(is_binary(side) for side in sides):
            binary.add(pair.path)
    return binary


def file_head(path: Path) -> bytes:
    """The first bytes of a file in the working tree (a symbolic link's are its target, as git stores it)."""
    try:
        if path.is_symlink():
            return os.readlink(path).encode()
        with open(path, "rb") as file:
            return file.read(BINARY_PROBE)
    except OSError:
        return b""


def _patches(root: Path, revs: list[str], pairs: list[FilePair], binary: set[str],
             context_lines: int) -> dict[str, str]:
    """path -> its part of the one ``--text`` diff of the change (binary files left out when they are
    few). Should the parts not line up with ``pairs`` (a path git quotes, an unmerged file), each file is
    diffed on its own instead."""
    skip = [f":(exclude,literal){path}" for path in sorted(binary)] if len(binary) <= _MAX_EXCLUDED else []
    wanted = [pair for pair in pairs if not (skip and pair.path in binary)]
    limit = ["--", ".", *skip] if skip else []
    out = run_git(root, "diff", "--text", f"-U{context_lines}", "-M", *revs, *limit).stdout
    parts = split_patch(out)
    if len(parts) == len(wanted) and all(_names(part, pair) for part, pair in zip(parts, wanted)):
        return {pair.path: part for pair, part in zip(wanted, parts)}
    return {pair.path: run_git(root, "diff", "--text", f"-U{context_lines}", "-M", *revs, "--",
                               *([pair.old_path] if pair.old_path else []), pair.path).stdout
            for pair in wanted}


def split_patch(patch: str) -> list[str]:
    """A multi-file diff cut at each ``diff --git`` header (no content line starts so: each has a prefix)."""
    starts = [0] if patch.startswith("diff --git ") else []
    at = patch.find("\ndiff --git ")
    while at >= 0:
        starts.append(at + 1)
        at = patch.find("\ndiff --git ", at + 1)
    return [patch[a:b] for a, b in zip(starts, [*starts[1:], len(patch)])]


def _names(part: str, pair: FilePair) -> bool:
    """The part's header names the pair (a path git has to quote is taken on trust from the order)."""
    header = part.split("\n", 1)[0]
    if header.endswith('"'):
        return True
    return header == f"diff --git a/{pair.old_path or pair.path} b/{pair.path}"


def count_lines(diff: str) -> tuple[int, int]:
    """(added, removed) lines of a one-file diff, counted in its hunks only (a removed line reading
    ``-- x`` is not a ``---`` header there)."""
    added = removed = 0
    in_hunks = False
    for line in diff.split("\n"):
        if line.startswith("@@"):
            in_hunks = True
        elif in_hunks and line.startswith("+"):
            added += 1
        elif in_hunks and line.startswith("-"):
            removed += 1
    return added, removed


def untracked_file(root: Path, name: str, max_chars: int) -> ChangedFile:
    """An untracked file as an added one, its diff written here rather than by one git process per file."""
    path = root / name
    if is_binary(file_head(path)):
        return ChangedFile(path=name, change_type="binary")
    try:
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    except OSError:
        data = b""
    mode = "120000" if path.is_symlink() else "100755" if os.access(path, os.X_OK) else "100644"
    whole = added_file_diff(name, data.decode("utf-8", errors="replace"), mode)
    diff, cut = truncate_diff(whole, max_chars)
    return ChangedFile(path=name, change_type="added", additions=count_lines(whole)[0], diff=diff,
                       truncated=cut, full_diff=whole if cut else "")


def added_file_diff(name: str, text: str, mode: str = "100644") -> str:
    """The diff git prints for a new file holding ``text``."""
    header = f"diff --git a/{name} b/{name}\nnew file mode {mode}\n"
    if not text:
        return header
    lines = text.split("\n")
    end = "\n" if text.endswith("\n") else "\n\\ No newline at end of file\n"
    if text.endswith("\n"):
        lines.pop()
    span = "1" if len(lines) == 1 else f"1,{len(lines)}"
    return header + f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +{span} @@\n" + "\n".join(
        "+" + line for line in lines) + end


def truncate_diff(diff: str, max_chars: int) -> tuple[str, bool]:
    """Cut at ``max_chars`` on a line boundary, with a visible marker saying how much is missing. The cut
    keeps at least the start of the first changed line: a first line longer than the limit is cut inside
    the line (marked), so an added file never looks empty to the model."""
    if len(diff) <= max_chars:
        return diff, False
    cut = diff.rfind("\n", 0, max_chars) + 1 or max_chars
    first = _first_change(diff)
    if first is not None and cut <= first:
        end = diff.find("\n", first)
        end = len(diff) if end < 0 else end
        keep = min(end, max(max_chars, first + 200))
        head = diff[:keep]
        missing = len(diff) - keep
        return head + f" ... [line cut; diff truncated: {missing} more characters not shown]\n", True
    missing = len(diff) - cut
    return diff[:cut] + f"... [diff truncated: {missing} more characters not shown]\n", True


def _first_change(diff: str) -> int | None:
    """Offset of the first added or removed line after the first hunk header."""
    start = 0 if diff.startswith("@@") else diff.find("\n@@") + 1
    if diff[start:start + 2] != "@@":
        return None
    pos = diff.find("\n", start)
    while 0 <= pos < len(diff) - 1:
        if diff[pos + 1] in "+-":
            return pos + 1
        pos = diff.find("\n", pos + 1)
    return None
