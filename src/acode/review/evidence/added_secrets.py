"""Secrets added by a change, as review evidence. Detection is ``acode.secrets`` (detect-secrets' plugins,
the same detector as the redaction of everything acode writes; the file's path chooses how keyword
assignments are read). Every added line of a file is read in one pass, so a secret spread over lines (a
private key) is seen whole; the line numbers are the new file's."""

from __future__ import annotations

from acode.review.models import Finding
from acode.secrets import find_secrets, redact


def _found(text: str, path: str) -> list[tuple[int, str]]:
    """(0-based line index in ``text``, kind) of every secret."""
    return [(hit.line - 1, hit.kind) for hit in find_secrets(text, path)]


def secret_findings(path: str, added: list[tuple[int, str]]) -> list[Finding]:
    """One critical finding per added line that holds a secret (numbers are the new file's)."""
    if not added:
        return []
    text = "\n".join(line for _, line in added)
    seen: set[tuple[int, str]] = set()
    out = []
    for index, kind in _found(text, path):
        if not 0 <= index < len(added) or (index, kind) in seen:
            continue
        seen.add((index, kind))
        number, line = added[index]
        out.append(Finding(
            dimension="safety", source="secrets", rule=f"secret/{kind}", severity="critical",
            message=f"a secret ({kind}) is added in the code", file=path, line=number,
            quote=redact(line.strip()), suggestion="remove it, rotate it, and read it from the environment",
            confidence=1.0,
        ))
    return out
