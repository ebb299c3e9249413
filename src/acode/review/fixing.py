"""`acode review --fix`: the safe fixes of a review written into the working tree.

A fix is applied only when ruff marks it ``safe``, its file is one the change touches, and the file's text
is still the one the review read (``SuggestedFix.file_sha256``): a file edited since, or one whose bytes are
not UTF-8, is left alone. Everything not applied is listed with the reason.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from pathlib import Path

from acode.fsutil import atomic_write_bytes, resolves_inside
from acode.review.evidence.suggested_fixes import apply_fix, text_sha256
from acode.review.models import Finding, ReviewContext, ReviewResult, SuggestedFix


@dataclass(frozen=True)
class FixOutcome:
    rule: str
    file: str
    line: int
    end_line: int
    applicability: str
    message: str
    applied: bool
    why: str = ""  # why it was not applied

    def as_dict(self) -> dict:
        return asdict(self)


def apply_safe_fixes(context: ReviewContext, result: ReviewResult) -> list[FixOutcome]:
    """Apply the safe fixes of ``result``'s counting findings to ``context``'s working tree."""
    touched = {f.path for f in context.files if f.change_type not in ("deleted", "binary")}
    by_file: dict[str, list[tuple[Finding, SuggestedFix]]] = {}
    for finding in result.all_findings():
        if finding.fix is not None and finding.file and finding.counts:
            by_file.setdefault(finding.file, []).append((finding, finding.fix))
    outcomes: list[FixOutcome] = []
    for path, fixes in sorted(by_file.items()):
        outcomes += _apply_in_file(context.root, path, fixes, touched)
    return outcomes


def _outcome(finding: Finding, fix: SuggestedFix, applied: bool, why: str = "") -> FixOutcome:
    return FixOutcome(rule=finding.rule, file=finding.file or "", line=fix.line, end_line=fix.end_line,
                      applicability=fix.applicability, message=fix.message, applied=applied, why=why)


def _apply_in_file(root: Path, path: str, fixes: list[tuple[Finding, SuggestedFix]],
                   touched: set[str]) -> list[FixOutcome]:
    def skip_all(why: str) -> list[FixOutcome]:
        return [_outcome(f, fix, False, why) for f, fix in fixes]

    if path not in touched:
        return skip_all("not a file the change touches")
    file = root / path
    if file.is_symlink() or not resolves_inside(file, root) or not file.is_file():
        return skip_all("not a regular file inside the repository")
    raw = file.read_bytes()
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return skip_all("the file is not UTF-8 text")
    text = decoded.replace("\r\n", "\n")
    crlf = decoded.count("\r\n")
    if "\r" in text or (crlf and crlf != decoded.count("\n")):
        return skip_all("the file mixes line endings")
    if any(fix.file_sha256 != text_sha256(text) for _, fix in fixes):
        return skip_all("the file changed since the review read it")
    outcomes, applied_from = [], None  # the first line of the last fix applied (they go bottom up)
    for finding, fix in sorted(fixes, key=lambda pair: pair[1].line, reverse=True):
        if fix.applicability != "safe":
            outcomes.append(_outcome(finding, fix, False, f"ruff marks this fix {fix.applicability}"))
        elif applied_from is not None and fix.end_line >= applied_from:
            outcomes.append(_outcome(finding, fix, False, "its lines overlap another fix applied"))
        else:
            text = apply_fix(text, fix)
            applied_from = fix.line
            outcomes.append(_outcome(finding, fix, True))
    if applied_from is not None:
        mode = file.stat().st_mode
        newline = "\r\n" if crlf else "\n"
        atomic_write_bytes(file, text.replace("\n", newline).encode("utf-8"))
        os.chmod(file, mode & 0o7777)
    return sorted(outcomes, key=lambda o: o.line)
