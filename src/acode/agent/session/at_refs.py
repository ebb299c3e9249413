"""``@`` references in a prompt (chat and ``-p``): ``@src/app.py``, ``@docs/``, ``@src/**/*.py``.

Each reference is read through the confined ``read_file`` tool (a path outside the workspace is refused
the same way the model's own calls are), folders and globs list only the files tools see (``.gitignore``,
``.acodeignore``), ``.acode/`` and binary files are skipped, and a size cap leaves the rest out by name.
The prompt keeps its text; the contents follow in one block:

    explain @util.py please
    --- Content from referenced files ---
    Content from @util.py:
    ...
    --- End of content ---

The chat's working set (``/add``, ``/read-only``: acode.cli.working_set) is attached the same way on every
prompt; read-only files are headed ``Content from @path (read-only):``.

An ``@`` inside a word (``dev@example.com``) stays text, and so does an escaped one (``\\@name``). A
reference to something that does not exist stays text too, with a note.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from acode.shown import undecodable_escaped
from acode.tools.base import ToolContext, ToolError
from acode.tools.files import ReadFile, ReadFileArgs
from acode.tools.globmatch import match_glob
from acode.tools.ignore import IgnoreRules, candidate_files
from acode.tools.paths import protected_part, resolve_path, workspace_root
from acode.tools.textio import is_binary_file

CONTENT_HEADER = "--- Content from referenced files ---"
READ_ONLY_LABEL = " (read-only)"
MAX_TOTAL_CHARS = 20_000  # about 5,000 tokens: a small local model's context has room for little more
MAX_FILES = 40
GLOB_CHARS = set("*?[{")
# an @ at the start or after whitespace / an opening bracket; the path runs to whitespace (``\ `` escapes one)
_REF = re.compile(r"(?<![\w@\\])@((?:\\.|[^\s\\])+)")
_TRAILING = ".,;:!?)]}'\""


@dataclass
class Expansion:
    prompt: str  # what goes to the model
    included: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # "path (why)"
    chars: int = 0

    def notes(self) -> list[str]:
        out = []
        if self.included:
            out.append(
                f"@ included {len(self.included)} file(s), {self.chars:,} characters: "
                f"{', '.join(self.included)}"
            )
        if self.skipped:
            out.append(f"@ left out: {'; '.join(self.skipped)}")
        return out


def _unescape(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw)


def find_refs(text: str) -> list[str]:
    return [_unescape(m.group(1)) for m in _REF.finditer(text)]


def reference_refusal(root: Path, rel: str, rules: IgnoreRules | None) -> str | None:
    """Why the file ``rel`` (inside the real workspace ``root``) is not put into a prompt, or None. One rule
    for a prompt's ``@path`` and a custom command's ``@{path}``: nothing inside ``.git/`` or ``.acode/`` (at
    any depth), nothing ignored when named on its own (``rules``), no binary file."""
    part = protected_part(root, root / rel)
    if part:
        return f"inside {part}/"
    if rules is not None and rules.is_ignored(rel, False):
        return "ignored by .gitignore/.acodeignore"
    if is_binary_file(root / rel):
        return "binary"
    return None


class _Reader:
    def __init__(self, ctx: ToolContext, max_total: int, max_files: int):
        self.ctx = ctx
        self.root = workspace_root(ctx)
        self.rules = IgnoreRules(self.root)
        self.max_total = max_total
        self.max_files = max_files
        self.out = Expansion("")
        self.blocks: list[str] = []
        self.seen: set[str] = set()
        self.label = ""  # after the path in a block's heading: " (read-only)" for the chat's read-only files
        self._listing: list[str] | None = None

    def listing(self) -> list[str]:
        if self._listing is None:
            self._listing = candidate_files(self.root)
        return self._listing

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() if path != self.root else "."

    def expand(self, ref: str) -> bool:
        """False when ``ref`` names nothing (it then stays plain text)."""
        if any(c in GLOB_CHARS for c in ref):
            matches = [p for p in self.listing() if match_glob(ref.lstrip("./"), p)]
            if not matches:
                return False
            for rel in matches:
                self.add(rel, from_listing=True)
            return True
        try:
            path = resolve_path(self.ctx, ref)
        except ToolError as exc:  # outside the workspace, a symlink leading out: the tool's own message
            self.out.skipped.append(f"@{ref} ({exc})")
            return True
        if not path.exists():
            return False
        rel = self.rel(path)
        if path.is_dir():
            prefix = "" if rel == "." else rel + "/"
            files = [p for p in self.listing() if p.startswith(prefix)]
            if not files:
                self.out.skipped.append(f"@{ref} (no files there that are not ignored)")
            for file in files:
                self.add(file, from_listing=True)
            return True
        self.add(rel, from_listing=False)
        return True

    def add(self, rel: str, *, from_listing: bool) -> None:
        if rel in self.seen:
            return
        self.seen.add(rel)
        why = reference_refusal(self.root, rel, None if from_listing else self.rules)
        if why:
            self.out.skipped.append(f"{rel} ({why})")
            return
        if len(self.out.included) >= self.max_files:
            self.out.skipped.append(f"{rel} (more than {self.max_files} files)")
            return
        result = ReadFile().run(ReadFileArgs(file_path=rel), self.ctx)
        text = result.output
        room = self.max_total - self.out.chars
        if len(text) > room:
            self.out.skipped.append(
                f"{rel} ({len(text):,} characters; the {self.max_total:,}-character cap is reached)"
            )
            return
        self.out.included.append(rel)
        self.out.chars += len(text)
        self.blocks.append(f"Content from @{rel}{self.label}:\n{text}")


def expand_at_refs(
    text: str,
    ctx: ToolContext,
    *,
    max_total_chars: int = MAX_TOTAL_CHARS,
    max_files: int = MAX_FILES,
    also: Sequence[str] = (),
    read_only: Sequence[str] = (),
) -> Expansion:
    """``also`` / ``read_only``: more references to include (the chat's working set, /add and /read-only);
    the read-only ones are marked so in their heading."""
    reader = _Reader(ctx, max_total_chars, max_files)
    typed = find_refs(text)
    for index, raw in enumerate([*typed, *also, *read_only]):
        reader.label = READ_ONLY_LABEL if index >= len(typed) + len(also) else ""
        ref = raw
        while not reader.expand(ref):
            trimmed = ref.rstrip(_TRAILING)  # "look at @util.py." -> util.py
            if trimmed == ref or not trimmed:
                reader.out.skipped.append(f"@{raw} (no such file or folder; kept as text)")
                break
            ref = trimmed
    prompt = _unescape_at(text)
    if reader.blocks:
        prompt += f"\n\n{CONTENT_HEADER}\n" + "\n\n".join(reader.blocks)
        prompt += "\n--- End of content ---"
    out = reader.out
    out.prompt = undecodable_escaped(prompt)  # names that are not UTF-8, as the tools show them
    out.included = [undecodable_escaped(name) for name in out.included]
    out.skipped = [undecodable_escaped(note) for note in out.skipped]
    return out


def _unescape_at(text: str) -> str:
    """``\\@`` becomes ``@``; everything else is left as typed."""
    return text.replace("\\@", "@")


def typed_text(prompt: str) -> str:
    """What the user typed, without the content of the files their references attached."""
    return prompt.split(f"\n\n{CONTENT_HEADER}", 1)[0]


def has_refs(text: str) -> bool:
    return bool(_REF.search(text))
