"""A finding's fix in the reports: a GitHub ```suggestion block in the Markdown, reviewdog's linewise
``suggestions`` in rdjson (its GitHub reporter turns them into the same block), SARIF ``fixes``.

A suggestion replaces whole lines, ``fix.line``..``fix.end_line`` (GitHub's multi-line suggestion: the
comment's line range becomes the block's content); an empty block deletes them. Only fixes a reviewer may
accept with one click are offered (ruff's ``safe`` and ``unsafe``, not ``display-only``), and never one
whose text the secret redaction would change: accepting it would write the redacted text into the code.
"""

from __future__ import annotations

import re
from typing import Any

from acode.review.evidence.suggested_fixes import suggestion_lines
from acode.review.models import Finding, SuggestedFix
from acode.secrets import redact


def offered(finding: Finding) -> SuggestedFix | None:
    """The fix to show as a suggestion, or None."""
    fix = finding.fix
    if fix is None or fix.applicability == "display-only" or not finding.file:
        return None
    if redact(fix.replacement) != fix.replacement:
        return None
    return fix


def markdown_block(fix: SuggestedFix, *, indent: str = "") -> list[str]:
    """The ```suggestion block, fenced longer than any backtick run in it."""
    body = suggestion_lines(fix)
    longest = max((len(run) for run in re.findall(r"`+", fix.replacement)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{indent}{fence}suggestion", *[f"{indent}{line}" if line else "" for line in body],
            f"{indent}{fence}"]


def rdjson_suggestion(fix: SuggestedFix) -> dict[str, Any] | None:
    """reviewdog's linewise suggestion (no columns: the lines start..end, their text replaced). None for a
    fix that leaves one empty line: its text would be "" and read as a deletion."""
    body = suggestion_lines(fix)
    if body == [""]:
        return None
    return {"range": {"start": {"line": fix.line}, "end": {"line": fix.end_line}}, "text": "\n".join(body)}


def sarif_fix(finding: Finding, fix: SuggestedFix) -> dict[str, Any]:
    """SARIF's fix: ruff's own edits as replacements (columns in Unicode code points, as ruff counts)."""
    return {
        "description": {"text": redact(fix.message or "ruff's fix")},
        "artifactChanges": [{
            "artifactLocation": {"uri": finding.file, "uriBaseId": "SRCROOT"},
            "replacements": [{
                "deletedRegion": {"startLine": e.line, "startColumn": e.column, "endLine": e.end_line,
                                  "endColumn": e.end_column},
                "insertedContent": {"text": e.content},
            } for e in fix.edits],
        }],
        "properties": {"applicability": fix.applicability},
    }
