"""Detect omission placeholders ("... rest of code unchanged ...", "// existing code here") that a model
writes instead of the real code. Writing them would silently delete code, so edits containing new ones
are refused."""

from __future__ import annotations

import re

_COMMENT_START = re.compile(r"^\s*(?:#+|//+|/\*+|\*+|<!--|--|;+|%+|\{/\*)\s*")
_COMMENT_END = re.compile(r"\s*(?:\*+/|-->|\*/\})\s*$")
_ELLIPSIS = re.compile(r"\.\.\.|…")

_SUBJECT = r"(?:code|implementation|content|contents|methods?|functions?|logic|file|body|class|lines?|tests?)"
_SUFFIX = (
    r"(?:here|goes\s+here|unchanged|omitted|as\s+before|is\s+unchanged|not\s+shown|"
    r"remains?(?:\s+unchanged|\s+the\s+same)?|stays?\s+the\s+same)"
)
_REST = rf"(?:the\s+)?rest\s+of\s+(?:the\s+)?(?:\w+\s+)?{_SUBJECT}"
_EXISTING = (
    rf"(?:(?:all|any)\s+)?(?:the\s+)?(?:existing|previous|original|other|remaining|unchanged|old|same)\s+"
    rf"(?:\w+\s+)?{_SUBJECT}"
)
# With an ellipsis on the line, a placeholder phrase at the start is enough ("... rest of the code ...").
_WITH_ELLIPSIS = re.compile(rf"^(?:{_REST}|{_EXISTING})\b")
# Without one the whole comment must be the placeholder: "# rest of the file", "// existing code here".
_WHOLE_LINE = [
    re.compile(rf"^{_REST}(?:\s+{_SUFFIX})?$"),
    re.compile(rf"^{_EXISTING}\s+{_SUFFIX}$"),
    re.compile(
        r"^(?:\w+\s+){0,3}(?:unchanged|omitted(?:\s+for\s+brevity)?|remains?\s+(?:unchanged|the\s+same)|"
        r"stays?\s+the\s+same|same\s+as\s+before|as\s+before)$"
    ),
]


def _placeholder_body(line: str) -> str | None:
    """The normalised text of a comment or ellipsis line, or None for ordinary code lines."""
    has_comment = bool(_COMMENT_START.match(line))
    has_ellipsis = bool(_ELLIPSIS.search(line))
    if not (has_comment or has_ellipsis):
        return None
    body = _COMMENT_END.sub("", _COMMENT_START.sub("", line))
    body = _ELLIPSIS.sub(" ", body)
    body = re.sub(r"[\[\]().,:;!<>{}*\-]+", " ", body).lower()
    body = " ".join(body.split())
    if not body or len(body.split()) > 9:
        return None
    return body


def is_placeholder_line(line: str) -> bool:
    body = _placeholder_body(line)
    if body is None:
        return False
    if _ELLIPSIS.search(line) and _WITH_ELLIPSIS.search(body):
        return True
    return any(p.search(body) for p in _WHOLE_LINE)


def find_new_placeholders(new_text: str, old_text: str = "") -> list[str]:
    """Placeholder lines in ``new_text`` that were not already in ``old_text`` (existing ones are the
    file's own business, e.g. documentation of this very check)."""
    existing = {line.strip() for line in old_text.splitlines()}
    return [
        line.strip()
        for line in new_text.splitlines()
        if is_placeholder_line(line) and line.strip() not in existing
    ]


def placeholder_error(tool: str, found: list[str]) -> str:
    sample = "; ".join(repr(line) for line in found[:3])
    return (
        f"{tool} refused: the new content contains omission placeholder(s) {sample}. Writing them would "
        "delete the code they stand for. Provide the complete text (or use replace to change only the "
        "part you mean to change)."
    )
