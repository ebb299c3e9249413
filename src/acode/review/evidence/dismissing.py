"""`acode review dismiss`: one finding of a stored review recorded in the project's
``.acode/review-dismissed.yml`` (acode.review.evidence.dismissed), to be committed and reviewed like code.
It counts once it is on the base branch: a review reads the file as its base has it."""

from __future__ import annotations

import datetime
from pathlib import Path

from acode.errors import UsageError
from acode.fsutil import atomic_write_text
from acode.gitcmd import run_git
from acode.review.evidence.dismissed import DISMISSED_FILE, Dismissal, parse_dismissals, render_dismissals
from acode.review.models import Finding, ReviewResult


def finding_ref(finding: Finding) -> str:
    """How a person names a finding: ``RULE@FILE:LINE`` (``RULE@FILE`` without a line)."""
    return f"{finding.rule}@{finding.file}" + (f":{finding.line}" if finding.line else "")


def find_finding(result: ReviewResult, ref: str) -> Finding:
    """The counting finding ``ref`` names: ``RULE@FILE:LINE`` as the report shows it, or its fingerprint
    (at least 6 leading characters)."""
    counting = [f for f in result.all_findings() if f.counts and f.fingerprint]
    found = [f for f in counting if ref in (finding_ref(f), f"{f.rule}@{f.file}")
             or (len(ref) >= 6 and f.fingerprint.startswith(ref))]
    if len({f.fingerprint for f in found}) == 1:
        return found[0]
    shown = ", ".join(sorted({finding_ref(f) for f in counting})[:12]) or "none"
    what = "names more than one finding" if found else "names no counting finding"
    raise UsageError("ACODE-REVIEW-062", f"'{ref}' {what} of this review (its findings: {shown})",
                     hint="name it as RULE@FILE:LINE (e.g. ruff/S602@app.py:6), as `acode review show` lists "
                          "it")


def record_dismissal(root: Path, result: ReviewResult, ref: str, reason: str) -> tuple[Dismissal, Path]:
    """Add the finding ``ref`` names to the working tree's dismissals file (once); (its entry, the file)."""
    if not reason.strip():
        raise UsageError("ACODE-REVIEW-063", "a dismissal needs a reason",
                         hint='acode review dismiss RULE@FILE:LINE --reason "why this is not a problem here"')
    finding = find_finding(result, ref)
    path = root / DISMISSED_FILE
    if path.is_symlink():
        raise UsageError("ACODE-REVIEW-064", f"{path} is a symbolic link; acode does not write through it",
                         hint="make it a plain file")
    entries = parse_dismissals(path.read_text(encoding="utf-8"), DISMISSED_FILE) if path.is_file() else []
    by = run_git(root, "config", "user.name", check=False).stdout.strip()
    entry = Dismissal(fingerprint=finding.fingerprint, rule=finding.rule, file=finding.file or "",
                      code=finding.quote, reason=reason.strip(), by=by,
                      at=datetime.date.today().isoformat())
    if all(e.fingerprint != entry.fingerprint for e in entries):
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, render_dismissals([*entries, entry]))
    return entry, path
