"""Context files: project instructions (``ACODE.md`` / ``AGENTS.md``) loaded into the system prompt.

Looked up from the workspace root upwards (a monorepo's outer folders too, stopping below the home
folder) and down to the working folder, plus the user's own ``~/.config/acode/ACODE.md``. Order in the
prompt: the user's file first, then the outermost folder down to the working folder, so the most
specific instructions come last. ``@import`` lines are expanded (acode.agent.session.memory). A context
file in the project that is a symlink leading out of it (``AGENTS.md -> ../outside.txt``) is not read,
as an ``@import`` out of it is not.
Each file and the total are capped: a small local model has a few thousand tokens to spare.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acode.agent.session.memory import context_folders, expand_imports
from acode.fsutil import resolves_inside
from acode.paths import user_config_dir

log = logging.getLogger("acode.context")

CONTEXT_FILE_NAMES = ("ACODE.md", "AGENTS.md")
MAX_FILE_CHARS = 3000
MAX_TOTAL_CHARS = 6000


@dataclass(frozen=True)
class ContextFile:
    path: Path
    label: str  # how the prompt names it
    text: str
    truncated: bool = False


def find_context_files(
    workspace: Path,
    *,
    names: Sequence[str] = CONTEXT_FILE_NAMES,
    user_dir: Path | None = None,
    max_file_chars: int = MAX_FILE_CHARS,
    max_total_chars: int = MAX_TOTAL_CHARS,
    cwd: Path | None = None,
) -> list[ContextFile]:
    root = workspace.resolve()
    # (file, label, the folder it must resolve inside: None for the user's own file)
    candidates: list[tuple[Path, str, Path | None]] = []
    user_file = (user_dir or user_config_dir()) / "ACODE.md"
    candidates.append((user_file, "your user settings (~/.config/acode/ACODE.md)", None))
    for folder in context_folders(root, cwd):
        inside_project = folder.is_relative_to(root)
        for name in names:
            label = (
                name
                if folder == root
                else (str(folder.relative_to(root) / name) if inside_project else str(folder / name))
            )
            candidates.append((folder / name, label, root if inside_project else folder))

    found: list[ContextFile] = []
    seen: set[Path] = set()
    budget = max_total_chars
    for path, label, confine in candidates:
        if budget <= 0 or not path.is_file():
            continue
        if confine is not None and not resolves_inside(path, confine):
            log.warning("%s is a symlink to %s, outside %s; it is not read", label, path.resolve(), confine)
            continue
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        text = expand_imports(text, path).strip()  # @import lines (acode.agent.session.memory)
        if not text:
            continue
        limit = min(max_file_chars, budget)
        cut = len(text) > limit
        text = text[:limit]
        budget -= len(text)
        found.append(ContextFile(resolved, label, text, cut))
    return found
