"""A revision's files written to a folder from git's own objects (``git ls-tree`` and one streamed
``git cat-file --batch``), where the tests of each side of a change run.

Not ``git archive``: it obeys the tree's ``.gitattributes``, so a change adding ``tests/ export-ignore`` or
``export-subst`` would leave out or rewrite its own files on one side. A symbolic link is written only when
it stays inside the tree; one to an absolute path or outside (``ln -s /usr/bin/python3 py``) is left out
and named, never followed and never a crash."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

from acode.gitblobs import each_blob
from acode.gitcmd import GitError, run_git

_FILE_MODES = {"100644": 0o644, "100755": 0o755}


def extract_tree(root: Path, rev: str, dest: Path, timeout: float = 300.0) -> list[str]:
    """``rev``'s tree written under ``dest`` (created); the symbolic links left out, by path."""
    dest.mkdir(parents=True)
    listing = run_git(root, "ls-tree", "-r", "-z", "--full-tree", rev, timeout=timeout).stdout
    files: dict[str, list[tuple[str, int]]] = {}  # oid -> (path, mode)
    links: dict[str, list[str]] = {}  # oid -> paths
    left_out = []
    for entry in filter(None, listing.split("\0")):
        meta, _, path = entry.partition("\t")
        mode, kind, oid = meta.split(" ")
        if not _plain(path):
            left_out.append(path)
        elif mode in _FILE_MODES:
            files.setdefault(oid, []).append((path, _FILE_MODES[mode]))
        elif mode == "120000":
            links.setdefault(oid, []).append(path)
        elif kind == "commit":  # a submodule: an empty folder, as a checkout without it has
            (dest / path).mkdir(parents=True, exist_ok=True)
    targets: dict[str, str] = {}

    def write(oid: str, chunks: Iterator[bytes]) -> None:
        if oid in links:  # a link's blob is its target (a file may hold the same bytes)
            raw = b"".join(chunks)
            targets[oid] = raw.decode("utf-8", errors="replace")
            chunks = iter([raw])
        data = b"".join(chunks) if len(files.get(oid, [])) > 1 else None  # one blob, several files
        for path, mode in files.get(oid, []):
            try:
                (dest / path).parent.mkdir(parents=True, exist_ok=True)
                with open(dest / path, "wb") as out:
                    out.writelines([data] if data is not None else chunks)
                os.chmod(dest / path, mode)
            except OSError:  # a crafted tree: a name both a file and a folder
                left_out.append(path)

    each_blob(root, [*files, *links], write, timeout=timeout)
    written = {oid for oid in files if any((dest / path).exists() for path, _ in files[oid])}
    if len(written) < len(files):
        raise GitError("ACODE-GIT-006", f"{len(files) - len(written)} file(s) of {rev} could not be read "
                       f"from {root}")
    made = []
    for oid, paths in links.items():
        for path in paths:
            try:
                (dest / path).parent.mkdir(parents=True, exist_ok=True)
                (dest / path).symlink_to(targets.get(oid, ""))
                made.append(path)
            except OSError:
                left_out.append(path)
    return sorted(left_out + _outside_links(dest, made))


def _plain(path: str) -> bool:
    """A relative path of ordinary names (a crafted tree may hold '..', '.git' or an absolute one)."""
    parts = PurePosixPath(path).parts
    return bool(parts) and not path.startswith("/") and all(
        part not in ("", ".", "..") and part.lower() != ".git" for part in parts)


def _outside_links(dest: Path, made: list[str]) -> list[str]:
    """Remove the links that lead out of ``dest`` (absolute, through ``..``, or through another link),
    judged with every link in place; their paths."""
    top = dest.resolve()
    outside = []
    for path in made:
        resolved = Path(os.path.realpath(dest / path))
        if resolved != top and top not in resolved.parents:
            outside.append(path)
    for path in outside:
        (dest / path).unlink()
    return outside
