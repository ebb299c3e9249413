"""Deterministic evidence, collected before the model judges: ruff on changed Python lines, secrets and
risky calls in added lines, whether tests were touched, and optionally the test command's result."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from acode.secrets import find_secrets, redact
from acode.review.diffparse import added_lines
from acode.review.git_context import read_new_text
from acode.review.models import Finding, ReviewContext
from acode.review.risky import match_rules

log = logging.getLogger("acode.review")

_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_[^/]+$|_test\.\w+$|\.(test|spec)\.\w+$")
_CODE_SUFFIXES = {".py", ".js", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt", ".rb", ".c", ".cc",
                  ".cpp", ".h", ".hpp", ".cs", ".php", ".swift", ".scala"}
# pyflakes, syntax/runtime errors, a few pycodestyle errors, and bugbear's likely bugs
RUFF_RULES = "E4,E7,E9,F,B"
# ruff rules that mean the code is broken rather than untidy
_RUFF_HIGH = re.compile(r"^(E9|F82|F63|F7|invalid-syntax)")


@dataclass
class Evidence:
    findings: list[Finding] = field(default_factory=list)
    tests: dict | None = None


def is_test_path(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def gather_evidence(context: ReviewContext, *, test_command: str | None = None,
                    test_timeout: float = 300.0) -> Evidence:
    evidence = Evidence()
    for changed in context.files:
        if changed.change_type in ("binary", "deleted"):
            continue
        for number, text in added_lines(changed.diff):
            evidence.findings += _line_findings(changed.path, number, text)
    evidence.findings += ruff_findings(context)
    evidence.findings += _tests_touched(context)
    if test_command:
        evidence.tests = run_test_command(test_command, context.root, test_timeout)
        if evidence.tests["exit_code"] != 0:
            evidence.findings.append(Finding(
                dimension="completeness", source="test-command", rule="tests/failed", severity="high",
                message=f"the test command `{test_command}` failed (exit {evidence.tests['exit_code']})"
                + (" after timing out" if evidence.tests["timed_out"] else ""),
                suggestion="make the tests pass before merging", confidence=1.0,
            ))
    return evidence


def _line_findings(path: str, number: int, text: str) -> list[Finding]:
    out = []
    for secret in find_secrets(text, path):  # the path: source files need quoted values
        out.append(Finding(
            dimension="safety", source="secrets", rule=f"secret/{secret.kind}", severity="critical",
            message=f"a secret ({secret.kind}) is added in the code", file=path, line=number,
            quote=redact(text.strip(), path), suggestion="remove it, rotate it, and read it from the environment",
            confidence=1.0,
        ))
    for rule in match_rules(text):
        out.append(Finding(
            dimension="safety", source="risky-call", rule=rule.rule, severity=rule.severity,  # type: ignore[arg-type]
            message=rule.message, file=path, line=number, quote=redact(text.strip()),
            suggestion=rule.suggestion, confidence=1.0,
        ))
    return out


def _tests_touched(context: ReviewContext) -> list[Finding]:
    code = [f for f in context.files if PurePosixPath(f.path).suffix in _CODE_SUFFIXES and not is_test_path(f.path)
            and f.change_type != "deleted"]
    if not code or any(is_test_path(f.path) for f in context.files):
        return []
    return [Finding(
        dimension="completeness", source="tests", rule="tests/not-touched", severity="low",
        message=f"code changed in {len(code)} file(s) but no test file was added or changed",
        suggestion="add or update a test that covers the change", grounding="none", confidence=1.0,
    )]


def ruff_findings(context: ReviewContext) -> list[Finding]:
    """Ruff's default rules on the new version of each changed Python file, kept on changed lines only."""
    targets = {}
    for changed in context.files:
        if changed.path.endswith(".py") and changed.change_type not in ("deleted", "binary"):
            lines = {n for n, _ in added_lines(changed.diff)}
            text = read_new_text(context, changed.path) if lines else None
            if text is not None:
                targets[changed.path] = (text, lines)
    if not targets:
        return []
    with tempfile.TemporaryDirectory(prefix="acode-ruff-") as tmp:
        for path, (text, _) in targets.items():
            target = Path(tmp, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", RUFF_RULES,
                 "--output-format", "json", "--exit-zero", "."], cwd=tmp, capture_output=True, text=True, timeout=120,
                check=False,
            )
            reports = json.loads(done.stdout or "[]")
        except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
            log.warning("ruff could not run: %s", exc)
            return []
        root = Path(tmp).resolve()
    findings = []
    for item in reports:
        path = Path(item["filename"]).resolve().relative_to(root).as_posix()
        line = (item.get("location") or {}).get("row")
        if path not in targets or line not in targets[path][1]:
            continue
        code = item.get("code") or "invalid-syntax"
        findings.append(Finding(
            dimension="code_quality", source="ruff", rule=f"ruff/{code}",
            severity="high" if _RUFF_HIGH.match(code) else "medium" if code.startswith("B") else "low", message=item.get("message", ""),
            file=path, line=line, quote=redact(targets[path][0].splitlines()[line - 1].strip()),
            suggestion=((item.get("fix") or {}).get("message") or ""), confidence=1.0,
        ))
    return findings


def run_test_command(command: str, root: Path, timeout: float) -> dict:
    """Run the project's tests in their own process group; the whole group is ended on timeout."""
    proc = subprocess.Popen(
        command, shell=True, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        errors="replace", start_new_session=True,
    )
    timed_out = False
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
    return {
        "command": command, "exit_code": proc.returncode if not timed_out else 124,
        "timed_out": timed_out, "output_tail": redact((output or "")[-3000:]),
    }
