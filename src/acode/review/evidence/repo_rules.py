"""The project's own rules (``reviewer.rules``): an ast-grep pattern scoped to paths, e.g. "never call
requests without a timeout in src/payments/". A rule fires on a changed line of a file its paths match, and
nowhere else. ast-grep (the ``ast-grep-cli`` package) only parses the changed file's new text, from a
temporary copy; nothing of the change runs. The rules come from the settings, which for a change to
``.acode/config.yml`` are its base's (acode.review.service.base_config): a change cannot loosen them."""

from __future__ import annotations

import fnmatch
import json
import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from acode.config.review import PathInstruction, RepoRule
from acode.review.change.diff import added_lines
from acode.review.change.git_context import read_new_text
from acode.review.models import Finding, ReviewContext

log = logging.getLogger("acode.review")


def ast_grep_binary() -> str | None:
    """ast-grep from PATH, else beside this Python (a venv without its bin on PATH)."""
    beside = Path(sys.executable).parent / "ast-grep"
    return shutil.which("ast-grep") or (str(beside) if beside.is_file() else None)


def applies(rule: RepoRule | PathInstruction, path: str) -> bool:
    return any(fnmatch.fnmatchcase(path, glob) for glob in rule.paths)


def rule_findings(context: ReviewContext, rules: list[RepoRule]) -> list[Finding]:
    """A finding per match of a rule on a changed line of a file in the rule's paths."""
    scoped = [(f, [r for r in rules if applies(r, f.path)]) for f in context.files
              if f.change_type not in ("deleted", "binary")]
    scoped = [(f, chosen) for f, chosen in scoped if chosen]
    if not scoped:
        return []
    binary = ast_grep_binary()
    if binary is None:
        return [Finding(dimension="consistency", source="rules", rule="rules/not-run", severity="info",
                        message="reviewer.rules apply to this change but ast-grep is not installed "
                                "(pip install ast-grep-cli)", confidence=1.0)]
    findings: list[Finding] = []
    with tempfile.TemporaryDirectory(prefix="acode-rules-") as tmp:
        for changed, chosen in scoped:
            text = read_new_text(context, changed.path)
            if text is None:
                continue
            copy = Path(tmp) / changed.path
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_text(text, encoding="utf-8")
            added = {number for number, _ in added_lines(changed.whole_diff)}
            for rule in chosen:
                for first, last, lines in _matches(binary, rule, copy):
                    if added.isdisjoint(range(first, last + 1)):
                        continue
                    findings.append(Finding(
                        dimension=rule.dimension, source="rules", rule=f"rules/{rule.id}",
                        severity=rule.severity, message=rule.message, file=changed.path, line=first,
                        end_line=last, quote=lines.strip().splitlines()[0] if lines.strip() else "",
                        confidence=1.0))
    return findings


def _matches(binary: str, rule: RepoRule, path: Path) -> list[tuple[int, int, str]]:
    """(first line, last line, the matched lines) of each match, 1-based; none when ast-grep fails."""
    try:
        done = subprocess.run([binary, "run", "--pattern", rule.pattern, "--lang", rule.language,
                               "--json=compact", str(path)], capture_output=True, text=True, timeout=60,
                              check=False)
        matches = json.loads(done.stdout or "[]")
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        log.warning("rule %s: ast-grep failed on %s: %s", rule.id, path.name, exc)
        return []
    return [(m["range"]["start"]["line"] + 1, m["range"]["end"]["line"] + 1, m.get("lines", ""))
            for m in matches]
