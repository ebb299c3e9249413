"""Candidates that cost no model call: ruff's findings whose fix changes what the code does, in the code
the prompt shows. A string that was meant to be an f-string (``'Field for "{name}" ...'`` without its
``f``: marshmallow 3.21.0->3.21.1, a real fix the 1.5B looked at for eight calls and never wrote), a
mutable default argument shared between calls, ``is`` against a literal. Each finding's fix is one
candidate; the tests choose, like every other candidate. A finding that is not the bug costs one test run.

Ruff is one of acode's own dependencies (the review runs it too); the project's ruff configuration is
ignored: these are not its style rules."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from dataclasses import dataclass

from acode.agent.fixing.rewrite import FileView, check_candidate

log = logging.getLogger("acode.agent.fixing")
# RUF027: a string with {name} of a variable in scope and no f prefix; B006: a mutable default
# argument; F632: `is` / `is not` against a str, bytes or number literal
RULES = "RUF027,B006,F632"
MAX_FIXES = 5  # per file: a file full of findings is not one bug each


@dataclass(frozen=True)
class StaticFix:
    code: str  # the ruff rule
    line: int
    text: str  # the whole file with the fix applied

    def describe(self, path: str) -> str:
        return f"ruff's fix for {self.code} at {path}:{self.line}, no model call"


def static_fixes(view: FileView, timeout: float = 30.0) -> list[StaticFix]:
    """``view`` with one finding's fix applied each, for the findings on lines the prompt shows (all of a
    file shown whole); none for a file that is not Python or when ruff cannot run."""
    if not view.path.endswith(".py"):
        return []
    fixes: list[StaticFix] = []
    for finding in _findings(view, timeout):
        line = finding["location"]["row"]
        if not _shown(view, line):
            continue
        text = _apply(view.text, finding["fix"]["edits"])
        if (text != view.text and all(text != f.text for f in fixes)
                and check_candidate(view.path, view.text, text) is None):
            fixes.append(StaticFix(finding.get("code") or "", line, text))
        if len(fixes) == MAX_FIXES:
            break
    return fixes


def _findings(view: FileView, timeout: float) -> list[dict]:
    command = [sys.executable, "-m", "ruff", "check", "--preview", "--isolated", "--no-cache", "--select",
               RULES, "--unsafe-fixes", "--output-format", "json", "--exit-zero", "--stdin-filename",
               view.path, "-"]
    try:
        done = subprocess.run(command, input=view.text, capture_output=True, text=True, timeout=timeout,
                              check=False)
        reports = json.loads(done.stdout or "[]") if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        reports = None
        log.warning("ruff could not run on %s: %s", view.path, exc)
    return [r for r in reports or [] if (r.get("fix") or {}).get("edits") and r.get("location")]


def _shown(view: FileView, line: int) -> bool:
    if view.shown_part is None:
        return True
    lines = view.text.splitlines()
    return 0 < line <= len(lines) and lines[line - 1].strip() != "" and lines[line - 1] in view.shown_part


def _apply(text: str, edits: list[dict]) -> str:
    """``text`` with ruff's edits (1-based rows and columns, counted in characters) applied, last first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(location: dict) -> int:
        row = min(location["row"], len(starts)) - 1
        return min(starts[row] + location["column"] - 1, len(text))

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[:offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]):]
    return text
