"""Context files: project instructions (``ACODE.md`` / ``AGENTS.md``) loaded into the system prompt.

Looked up from the workspace root upwards (a monorepo's outer folders too, stopping below the home
folder) and down to the working folder, plus the user's own ``~/.config/acode/ACODE.md``. Order in the
prompt: the user's file first, then the outermost folder down to the working folder, so the most
specific instructions come last. ``@import`` lines are expanded (acode.agent.memory).
Each file and the total are capped: a small local model has a few thousand tokens to spare.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acode.agent.memory import expand_imports
from acode.paths import user_config_dir

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
    candidates: list[tuple[Path, str]] = []
    user_file = (user_dir or user_config_dir()) / "ACODE.md"
    candidates.append((user_file, "your user settings (~/.config/acode/ACODE.md)"))
    for folder in context_folders(root, cwd):
        for name in names:
            label = name if folder == root else (str(folder.relative_to(root) / name) if folder.is_relative_to(root)
                                                 else str(folder / name))
            candidates.append((folder / name, label))

    found: list[ContextFile] = []
    seen: set[Path] = set()
    budget = max_total_chars
    for path, label in candidates:
        if budget <= 0 or not path.is_file():
            continue
        resolved = path.resolve()
        if resolved in seen:
            continue
        seen.add(resolved)
        try:
            text = path.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        text = expand_imports(text, path).strip()  # @import lines (acode.agent.memory)
        if not text:
            continue
        limit = min(max_file_chars, budget)
        cut = len(text) > limit
        text = text[:limit]
        budget -= len(text)
        found.append(ContextFile(resolved, label, text, cut))
    return found


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
