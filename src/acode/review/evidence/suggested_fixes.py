"""A fix the evidence carries (ruff's edits), turned into the whole lines it replaces: what a GitHub
suggestion block, an rdjson suggestion and `acode review --fix` all need. Lines are split on ``\\n`` only, as
ruff counts them (``str.splitlines`` also splits on form feeds and other separators ruff keeps inside a line).
"""

from __future__ import annotations

import hashlib

from acode.review.models import SuggestedFix, TextEdit


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def split_lines(text: str) -> list[str]:
    """The lines of ``text``, each with its ``\\n`` (the last without one when the text does not end so)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def build_fix(text: str, edits: list[TextEdit], *, applicability: str, message: str) -> SuggestedFix | None:
    """The fix of ``edits`` on ``text`` as a replacement of whole lines; None when the edits do not fit the
    text or the result cannot be said as a suggestion (it would add or drop the file's last newline)."""
    lines = split_lines(text)
    if not edits or applicability not in ("safe", "unsafe", "display-only"):
        return None
    first = min(e.line for e in edits)
    # an edit ending at column 1 stops before that line (a deleted line ends at the next line's start);
    # an insertion there (start == end) is about that line
    last = max(max(e.line, e.end_line if e.end_column > 1 else e.end_line - 1) for e in edits)
    if not 1 <= first <= last <= len(lines):
        return None
    segment = "".join(lines[first - 1:last])
    base = sum(len(line) for line in lines[:first - 1])
    spans = []
    for edit in edits:
        start, end = _offset(lines, edit.line, edit.column), _offset(lines, edit.end_line, edit.end_column)
        if start is None or end is None or not base <= start <= end <= base + len(segment):
            return None
        spans.append((start - base, end - base, edit.content))
    replacement = segment
    previous_start = len(segment) + 1
    for start, end, content in sorted(spans, reverse=True):
        if end > previous_start:
            return None  # overlapping edits: not a fix ruff would apply as one
        replacement = replacement[:start] + content + replacement[end:]
        previous_start = start
    if replacement and replacement.endswith("\n") != segment.endswith("\n"):
        return None
    return SuggestedFix(applicability=applicability,  # type: ignore[arg-type]  # checked above
                        message=message, edits=edits, line=first, end_line=last, replacement=replacement,
                        file_sha256=text_sha256(text))


def _offset(lines: list[str], line: int, column: int) -> int | None:
    """The character offset of a 1-based (line, column); the line after the last is the end of the text."""
    if line == len(lines) + 1 and column == 1:
        return sum(len(x) for x in lines)
    if not 1 <= line <= len(lines) or column < 1 or column - 1 > len(lines[line - 1]):
        return None
    return sum(len(x) for x in lines[:line - 1]) + column - 1


def apply_fix(text: str, fix: SuggestedFix) -> str:
    """``text`` with the fix's lines replaced: what accepting the suggestion on GitHub does."""
    lines = split_lines(text)
    return "".join(lines[:fix.line - 1]) + fix.replacement + "".join(lines[fix.end_line:])


def suggestion_lines(fix: SuggestedFix) -> list[str]:
    """The content of a suggestion block (no lines: the fix deletes the lines it replaces)."""
    body = fix.replacement.removesuffix("\n")
    return body.split("\n") if fix.replacement else []
