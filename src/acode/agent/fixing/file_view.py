"""What the fixer reads, shows and merges into: a file of the workspace as a path and its text (a long
file's prompt showing only a part of it), and how a file is read for a prompt."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

_LANGUAGES = {".py": "python", ".js": "javascript", ".ts": "typescript", ".toml": "toml", ".json": "json",
              ".md": "markdown", ".yml": "yaml", ".yaml": "yaml", ".sh": "bash"}


@dataclass(frozen=True)
class FileView:
    path: str  # workspace-relative, with forward slashes
    text: str
    # what the prompt showed instead of ``text`` (excerpt.py): a reply is merged by name, never taken for
    # the whole file, and a definition the prompt did not show is not rewritten blind
    shown_part: str | None = None

    @property
    def language(self) -> str:
        return _LANGUAGES.get(Path(self.path).suffix, "")


def read_text(path: Path) -> str:
    """A file's text for a prompt; an unreadable or non-UTF-8 file reads as empty (it is then not
    rewritten)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
