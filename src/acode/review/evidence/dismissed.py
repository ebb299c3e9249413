"""Findings a team dismissed once (`acode review dismiss`), kept in the repository in
``.acode/review-dismissed.yml`` and read from the base of the change under review (a change cannot dismiss
its own findings). A dismissal names a finding by its fingerprint: the rule, the file and the finding's code
with its whitespace normalised, not its line number, so it lasts while the code moves (a rebase, lines added
above) and ends when that code changes."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import yaml

from acode.errors import ConfigError
from acode.review.models import Finding

DISMISSED_FILE = ".acode/review-dismissed.yml"
HEADER = ("# Findings of `acode review` this team dismissed (`acode review dismiss`). A review reads\n"
          "# this file as the base of the change has it; an entry lasts until the code it names changes.\n")
_MAX_LINES = 40  # a finding spanning more (a whole function) is named by its first lines


@dataclass(frozen=True)
class Dismissal:
    fingerprint: str
    rule: str
    file: str
    code: str  # the normalised code the fingerprint was made of (for people reading the file)
    reason: str
    by: str = ""
    at: str = ""


def normalised_code(finding: Finding, read: Callable[[str], str | None]) -> str:
    """The finding's lines (line to end_line) of its file on the change's side, each stripped, runs of
    blanks made one space, empty lines dropped; its quote when the file or the line is not known."""
    text = read(finding.file) if finding.file and finding.line else None
    if text is None:
        lines = finding.quote.splitlines()
    else:
        first = finding.line or 1
        last = min(max(finding.end_line or first, first), first + _MAX_LINES - 1)
        lines = text.splitlines()[first - 1:last]
    return "\n".join(filter(None, (re.sub(r"\s+", " ", line).strip() for line in lines)))


def fingerprint(finding: Finding, code: str) -> str:
    key = "\0".join([finding.rule, finding.file or "", code])
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:20]


def with_fingerprints(findings: list[Finding], read: Callable[[str], str | None]) -> list[Finding]:
    return [f if f.fingerprint else
            f.model_copy(update={"fingerprint": fingerprint(f, normalised_code(f, read))}) for f in findings]


def apply_dismissals(findings: list[Finding], dismissed: Sequence[Dismissal]) -> list[Finding]:
    """``findings`` (fingerprinted) with each counting one a dismissal names set ``status: waived``."""
    known = {d.fingerprint: d for d in dismissed}
    out = []
    for finding in findings:
        entry = known.get(finding.fingerprint)
        if entry is None or not finding.counts:
            out.append(finding)
            continue
        out.append(finding.model_copy(update={"status": "waived", "message": f"{finding.message} (dismissed: "
                                              f"{entry.reason})"}))
    return out


def parse_dismissals(text: str, source: str) -> list[Dismissal]:
    """The entries of a dismissals file; ``source`` names it in errors."""
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ConfigError("ACODE-REVIEW-060", f"{source} is not valid YAML: {exc}",
                          hint="fix the file, or remove the entry you edited") from None
    entries = (data or {}).get("dismissed") if isinstance(data, dict) else None
    if entries is None:
        return []
    fields = set(Dismissal.__dataclass_fields__)
    if not isinstance(entries, list) or not all(isinstance(e, dict) and {"fingerprint", "rule", "file"}
                                                <= set(e) for e in entries):
        raise ConfigError("ACODE-REVIEW-061", f"{source}: 'dismissed' must be a list of entries with "
                          "fingerprint, rule and file", hint="add entries with `acode review dismiss`")
    return [Dismissal(**{k: str(v) for k, v in e.items() if k in fields and v is not None}
                      | {"code": str(e.get("code", "")), "reason": str(e.get("reason", ""))})
            for e in entries]


def render_dismissals(entries: Sequence[Dismissal]) -> str:
    return HEADER + yaml.safe_dump({"dismissed": [asdict(e) for e in entries]}, sort_keys=False,
                                   allow_unicode=True, width=100)
