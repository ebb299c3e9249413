"""Memory: the context files (``ACODE.md`` / ``AGENTS.md``) the agent reads, where they sit, their
``@import`` lines, and facts the user asks acode to remember.

- ``add_memory("use pytest -q")`` appends ``- use pytest -q`` under ``## acode memories`` in the user's
  global ``~/.config/acode/ACODE.md`` (``/memory add``, ``acode memory add``).
- A context file may include others: a line ``@import docs/style.md`` (or, as in Gemini CLI, a line
  holding only ``@./docs/style.md``) is replaced by that file's text. Paths are relative to the
  importing file; an import must stay inside the folder of the top-level context file (no ``..`` or
  symlink leading out), may nest ``MAX_IMPORT_DEPTH`` levels, and a file already on the import chain is
  not read again (a cycle becomes a note, not a hang). Lines inside code fences are left alone.
- ``hierarchy()`` lists every place acode looks: the global file, each folder from the project root
  down to the working folder (those are loaded), and context files in sub-folders (read on demand:
  ``@sub/ACODE.md``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acode.paths import user_config_dir

MEMORY_SECTION = "## acode memories"
MAX_IMPORT_DEPTH = 5
MAX_SUBFOLDER_FILES = 50
_IMPORT = re.compile(r"^\s*(?:@import\s+(?P<a>\S+)|@(?P<b>\.{0,2}/?[^\s@]+\.md))\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def global_memory_file() -> Path:
    return user_config_dir() / "ACODE.md"


def add_memory(fact: str, file: Path | None = None) -> Path:
    """Append one remembered fact (a list item) under ``## acode memories``; creates the file if needed."""
    fact = " ".join(fact.split())
    if not fact:
        from acode.errors import UsageError

        raise UsageError(
            "ACODE-MEM-001", "nothing to remember", hint='acode memory add "use pytest -q for tests"'
        )
    target = file or global_memory_file()
    target.parent.mkdir(parents=True, exist_ok=True)
    text = target.read_text(encoding="utf-8") if target.is_file() else ""
    item = f"- {fact}"
    if MEMORY_SECTION in text:
        head, _, tail = text.partition(MEMORY_SECTION)
        body, sep, rest = tail.partition("\n## ")  # the section ends at the next heading of its level
        body = body.rstrip("\n") + "\n" + item + "\n"
        text = head + MEMORY_SECTION + body + (("\n" + sep.lstrip("\n") + rest) if sep else "")
    else:
        text = (text.rstrip("\n") + "\n\n" if text.strip() else "") + f"{MEMORY_SECTION}\n\n{item}\n"
    target.write_text(text, encoding="utf-8")
    return target


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def expand_imports(
    text: str, source: Path, *, confine: Path | None = None, depth: int = 0, chain: Sequence[str] = ()
) -> str:
    """``text`` of the context file ``source`` with its ``@import`` lines replaced (see the module doc)."""
    source_real = os.path.realpath(source)
    folder = os.path.realpath(confine or source.parent)
    chain = (*chain, source_real)
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _IMPORT.match(line)
        if match is None:
            out.append(line)
            continue
        raw = match.group("a") or match.group("b")
        out.append(_import_one(raw, source_real, folder, depth, chain))
    return "\n".join(out)


def _import_one(raw: str, source_real: str, folder: str, depth: int, chain: Sequence[str]) -> str:
    target = os.path.realpath(os.path.join(os.path.dirname(source_real), os.path.expanduser(raw)))
    if not _inside(target, folder):
        return f"[@import {raw} skipped: outside {folder}]"
    if target in chain:
        return f"[@import {raw} skipped: it is already being included (an import cycle)]"
    if depth + 1 > MAX_IMPORT_DEPTH:
        return f"[@import {raw} skipped: imports nest deeper than {MAX_IMPORT_DEPTH} levels]"
    if not os.path.isfile(target):
        return f"[@import {raw} skipped: no such file]"
    try:
        with open(target, encoding="utf-8", errors="replace") as handle:
            content = handle.read()
    except OSError as exc:
        return f"[@import {raw} skipped: {exc.strerror}]"
    return expand_imports(content.strip(), Path(target), confine=Path(folder), depth=depth + 1, chain=chain)


def context_folders(root: Path, cwd: Path | None = None) -> list[Path]:
    """Folders whose context files are loaded, outermost first: those above the project root (stopping
    below the home folder), the root, then each folder down to the working folder ``cwd`` (default: the
    process's working folder, when it is inside the root)."""
    home = Path.home().resolve()
    above = [p for p in root.parents if p != home and home not in p.parents and p != p.parent]
    here = (cwd or Path.cwd()).resolve()
    below: list[Path] = []
    if here != root and here.is_relative_to(root):
        below = [p for p in reversed(here.parents) if p.is_relative_to(root) and p != root] + [here]
    return [*reversed(above), root, *below]


@dataclass(frozen=True)
class MemoryPlace:
    path: Path
    scope: str  # "global" | "project" | "above project" | "working folder" | "sub-folder"
    exists: bool
    loaded: bool  # read into the system prompt at the start of each session (and by /memory refresh)


def hierarchy(
    workspace: Path, names: Sequence[str], *, cwd: Path | None = None, user_file: Path | None = None
) -> list[MemoryPlace]:
    """Every place acode looks for context files, most general first."""
    root = workspace.resolve()
    places = [
        MemoryPlace(
            user_file or global_memory_file(), "global", (user_file or global_memory_file()).is_file(), True
        )
    ]
    for folder in context_folders(root, cwd):
        scope = (
            "project"
            if folder == root
            else ("above project" if root.is_relative_to(folder) else "working folder")
        )
        for name in names:
            path = folder / name
            places.append(MemoryPlace(path, scope, path.is_file(), True))
    loaded = {p.path for p in places}
    for rel in _subfolder_files(root, names):
        path = root / rel
        if path not in loaded:
            places.append(MemoryPlace(path, "sub-folder", True, False))
    return places


def _subfolder_files(root: Path, names: Sequence[str]) -> list[str]:
    from acode.tools.ignore import candidate_files

    try:
        files = candidate_files(root)
    except OSError:
        return []
    wanted = set(names)
    found = [f for f in files if "/" in f and f.rsplit("/", 1)[1] in wanted and not f.startswith(".acode/")]
    return found[:MAX_SUBFOLDER_FILES]
