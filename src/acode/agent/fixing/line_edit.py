"""The one-line edit format: a reply that is a small ```diff block (the wrong line as it is, the line as it
should be), applied to the file it names.

Asked after the whole-file one call when its answer did not pass: a small model that copies a whole file back
unchanged still names a line to change when that is all it is asked for, and such a reply is a few dozen
tokens, so several samples of it cost less than one more whole file. The tests choose among them."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.rewrite import check_candidate

_BLOCK = re.compile(r"```[ \t]*(?:diff|patch)?[ \t]*\n(.*?)(?:^```[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_HEADER = re.compile(r"^(?:diff --git |index [0-9a-f]|--- |\+\+\+ |@@ )")
LINE_STOP = ["\n```\n"]  # the reply's one block is complete: what follows is explanation
LINE_REPLY_TOKENS = 256  # a few lines, and room for a reply that writes diff headers first
FUZZY_MATCH = 0.85  # one old line written a little differently (spacing, quotes) is still that line


# the placeholders of fix_line.j2's example block: a reply that holds one copies the instruction
PLACEHOLDERS = ("<the wrong line", "<the corrected line>")


def copies_instruction(reply: str) -> bool:
    """Whether the reply is the instruction's example block written back: on the greedy ask the model
    does not follow this format (the 0.5B; its samples do the same), on a sample it is noise (the 1.5B,
    now and then)."""
    return any(placeholder in reply for placeholder in PLACEHOLDERS)


@dataclass(frozen=True)
class _Hunk:
    old: list[str]
    new: list[str]


def read_hunk(reply: str) -> _Hunk | None:
    """The old and new lines of the reply's first diff block (context lines in both); None without a
    ``-`` line to replace."""
    match = _BLOCK.search(reply)
    body = match.group(1) if match else reply
    old: list[str] = []
    new: list[str] = []
    for line in body.splitlines():
        if _HEADER.match(line) or line.strip() == "diff":
            continue
        if line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" ") and old:  # context after the first change: part of both sides
            old.append(line[1:])
            new.append(line[1:])
    if not any(line.strip() for line in old):
        return None
    return _Hunk(old, new)


def apply_line_edit(reply: str, targets: Sequence[FileView]) -> dict[str, str] | str:
    """{path: new text} of the one target the reply's diff changes, or the problem with the reply (as
    ``rewrite.parse_reply`` says it for a whole file: among them an edit that breaks the file's syntax)."""
    hunk = read_hunk(reply)
    if hunk is None:
        return "no line to change: reply with a ```diff block, the wrong line after - and the fix after +"
    for view in targets:
        lines = view.text.splitlines()
        start = _find(lines, hunk.old, view.shown_part)
        if start is None:
            continue
        new = _reindent(hunk.new, hunk.old, lines[start])
        edited = lines[:start] + new + lines[start + len(hunk.old):]
        text = "\n".join(edited) + ("\n" if view.text.endswith("\n") else "")
        return check_candidate(view.path, view.text, text) or {view.path: text}
    return f"the line to change is in none of {', '.join(v.path for v in targets)}"


def _find(lines: list[str], old: list[str], shown: str | None) -> int | None:
    """Where the ``old`` lines start in the file (compared without their indentation): inside the shown
    part first when the prompt showed an excerpt; a single line also when it is only nearly the same."""
    wanted = [line.strip() for line in old]
    stripped = [line.strip() for line in lines]
    starts = [i for i in range(len(lines) - len(old) + 1) if stripped[i:i + len(old)] == wanted]
    if not starts and len(old) == 1 and wanted[0]:
        ratios = [(difflib.SequenceMatcher(None, line, wanted[0]).ratio(), i)
                  for i, line in enumerate(stripped) if line]
        best = max(ratios, default=(0.0, 0))
        starts = [best[1]] if best[0] >= FUZZY_MATCH else []
    if shown is not None:  # the excerpt holds whole definitions: the lines with the one written before them
        def outside(i: int) -> bool:
            return "\n".join(lines[_written_before(lines, i):i + len(old)]) not in shown

        starts = sorted(starts, key=outside)
    return starts[0] if starts else None


def _written_before(lines: list[str], index: int) -> int:
    """The index of the last non-blank line before ``index`` (``index`` itself when there is none)."""
    return next((i for i in range(index - 1, -1, -1) if lines[i].strip()), index)


def _reindent(new: list[str], old: list[str], found: str) -> list[str]:
    """The new lines moved by as much as the reply's first old line is indented differently from the line
    found in the file (a reply often writes ``- x = 1`` for a line indented by eight spaces)."""
    written = next(line for line in old if line.strip())
    shift = _indent(found) - _indent(written)
    if shift >= 0:
        return [" " * shift + line if line.strip() else line for line in new]
    return [line[min(-shift, _indent(line)):] for line in new]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
