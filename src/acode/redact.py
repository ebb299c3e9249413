"""Finding and redacting secrets: private keys, well-known token formats, and passwords or keys assigned
as literals. Used wherever text is stored or printed (reviews, logs, reports) and by the review evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

REDACTED = "[REDACTED]"

# (kind, pattern). A pattern's group "secret" (when present) is the part to hide; else the whole match.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private-key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    ("aws-access-key", re.compile(r"\b(?P<secret>(?:AKIA|ASIA)[0-9A-Z]{16})\b")),
    ("github-token", re.compile(r"\b(?P<secret>(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}))")),
    ("slack-token", re.compile(r"\b(?P<secret>xox[abprs]-[A-Za-z0-9-]{10,})")),
    ("openai-style-key", re.compile(r"\b(?P<secret>sk-(?:proj-)?[A-Za-z0-9_-]{20,})")),
    ("google-api-key", re.compile(r"\b(?P<secret>AIza[0-9A-Za-z_-]{35})\b")),
    ("bearer-token", re.compile(r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/-]{20,}=*)")),
    (
        "credential-in-url",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:(?P<secret>[^@\s/]{3,})@", re.IGNORECASE),
    ),
    (
        "assigned-secret",
        re.compile(
            r"(?i)\b[\w.-]*(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)\w*"
            r"[\"']?\s*(?::=|=|:)\s*[bru]?(?P<q>[\"'])(?P<secret>[^\"'\s]{6,})(?P=q)"
        ),
    ),
]

# Literal values that are obviously not secrets (placeholders, lookups of the environment).
_PLACEHOLDER = re.compile(r"(?i)^(?:x+|\*+|changeme|example\w*|dummy\w*|placeholder|your[_-]\w+|<[^>]+>|\$\{?\w+\}?)$")


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int
    end: int  # the span to hide


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret-looking span in ``text``, without overlaps, in order."""
    found: list[SecretMatch] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span("secret") if "secret" in pattern.groupindex else match.span()
            value = text[span[0] : span[1]]
            if kind == "assigned-secret" and _PLACEHOLDER.match(value):
                continue
            if not any(s.start < span[1] and span[0] < s.end for s in found):
                found.append(SecretMatch(kind, *span))
    return sorted(found, key=lambda s: s.start)


def redact(text: str) -> str:
    """``text`` with every secret replaced by [REDACTED]."""
    if not text:
        return text
    out, last = [], 0
    for match in find_secrets(text):
        out.append(text[last : match.start])
        out.append(REDACTED)
        last = match.end
    out.append(text[last:])
    return "".join(out)


def redact_data(value: Any) -> Any:
    """Redact every string inside nested dicts / lists / tuples (for JSON that is stored or printed)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(item) for item in value]
    return value
