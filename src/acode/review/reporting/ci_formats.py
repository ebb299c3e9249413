"""A ReviewResult in the formats CI systems read (names as ruff's ``--output-format``):

- ``github``: workflow commands (``::error file=…,line=…::message``), shown as annotations on the diff;
- ``gitlab``: a GitLab Code Quality report (a JSON array of Code Climate issues);
- ``junit``: JUnit XML, one test case per dimension and one per counting finding;
- ``rdjson``: reviewdog's Diagnostic Format (JSON).

Every text goes through the secret redaction, as in the other reports.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from xml.etree import ElementTree

from acode.review.models import Finding, ReviewResult
from acode.review.reporting.escaping import gh_data, gh_property
from acode.review.reporting.suggestions import offered, rdjson_suggestion
from acode.secrets import redact

_GITHUB_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "notice", "info": "notice"}
_GITLAB_SEVERITY = {"critical": "blocker", "high": "critical", "medium": "major", "low": "minor",
                    "info": "info"}
_RDJSON_SEVERITY = {"critical": "ERROR", "high": "ERROR", "medium": "WARNING", "low": "INFO", "info": "INFO"}


def counting(result: ReviewResult) -> list[Finding]:
    return [f for f in result.all_findings() if f.counts]


def _text(finding: Finding) -> str:
    suggestion = f" Suggestion: {finding.suggestion}" if finding.suggestion else ""
    return redact(f"{finding.message}{suggestion}")


def _verdict_line(result: ReviewResult) -> str:
    reasons = "; ".join(redact(r) for r in result.decision.reasons)
    status = "" if result.status == "complete" else f" ({result.status})"
    return f"{result.decision.verdict}{status}" + (f": {reasons}" if reasons else "")


# -- GitHub Actions workflow commands ------------------------------------------------------------------
def render_github(result: ReviewResult) -> str:
    lines = []
    for f in counting(result):
        props = []
        if f.file:
            props.append(f"file={gh_property(f.file)}")
            if f.line:
                props.append(f"line={f.line}")
                if f.end_line and f.end_line > f.line:
                    props.append(f"endLine={f.end_line}")
        props.append(f"title={gh_property(f'acode {f.severity}: {f.rule}')}")
        lines.append(f"::{_GITHUB_LEVEL[f.severity]} {','.join(props)}::{gh_data(_text(f))}")
    level = "notice" if result.approved else "error"
    lines.append(f"::{level} title=acode review::{gh_data(_verdict_line(result))}")
    return "\n".join(lines)


# -- GitLab Code Quality ---------------------------------------------------------------------------------
def _fingerprint(f: Finding) -> str:
    key = "\0".join([f.rule, f.file or "", str(f.line or 0), f.message])
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()


def to_gitlab(result: ReviewResult) -> list[dict[str, Any]]:
    issues = []
    for f in counting(result):
        issues.append({
            "type": "issue",
            "check_name": f.rule,
            "description": _text(f),
            "categories": [f.dimension.replace("_", " ").title()],
            "severity": _GITLAB_SEVERITY[f.severity],
            "fingerprint": _fingerprint(f),
            # GitLab needs a path and a line; a finding about the change as a whole has neither
            "location": {"path": f.file or ".", "lines": {"begin": f.line or 1}},
        })
    return issues


def render_gitlab(result: ReviewResult) -> str:
    return json.dumps(to_gitlab(result), indent=2, ensure_ascii=False)


# -- JUnit XML -------------------------------------------------------------------------------------------
def render_junit(result: ReviewResult) -> str:
    findings = counting(result)
    suite = ElementTree.Element("testsuite", name="acode review", time=f"{result.duration_seconds:.3f}")
    failures = 0
    for dim in result.dimensions:
        case = ElementTree.SubElement(suite, "testcase", classname="acode.review.dimensions", name=dim.name)
        if dim.level in ("needs_work", "poor") or dim.status in ("failed", "timeout"):
            failures += 1
            failure = ElementTree.SubElement(case, "failure", type=dim.level or dim.status,
                                             message=f"{dim.name}: {dim.level or dim.status}")
            failure.text = redact(dim.explanation)
    for f in findings:
        where = f"{f.file}:{f.line}" if f.file and f.line else (f.file or "(change)")
        case = ElementTree.SubElement(suite, "testcase", classname=f"acode.review.findings.{f.dimension}",
                                      name=f"{f.rule} at {where}", **({"file": f.file} if f.file else {}))
        blocks = f.severity in ("critical", "high")
        tag = "failure" if blocks else "skipped"
        failures += blocks
        element = ElementTree.SubElement(case, tag, message=f"{f.severity}: {_text(f)}"[:500])
        if blocks:
            element.set("type", f.rule)
            element.text = _text(f)
    decision = ElementTree.SubElement(suite, "testcase", classname="acode.review", name="decision")
    if not result.approved:
        failures += 1
        failure = ElementTree.SubElement(decision, "failure", type=result.decision.verdict,
                                         message=_verdict_line(result)[:500])
        failure.text = _verdict_line(result)
    suite.set("tests", str(len(suite)))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(sum(1 for case in suite if case.find("skipped") is not None)))
    root = ElementTree.Element("testsuites", name="acode review", tests=suite.get("tests", "0"),
                               failures=str(failures), errors="0")
    root.append(suite)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode")


# -- reviewdog Diagnostic Format --------------------------------------------------------------------------
def to_rdjson(result: ReviewResult) -> dict[str, Any]:
    diagnostics = []
    for f in counting(result):
        location: dict[str, Any] = {"path": f.file or "."}
        fix = offered(f)
        suggestion = rdjson_suggestion(fix) if fix is not None else None
        if suggestion is not None:
            # reviewdog's GitHub reporter takes a suggestion only on the diagnostic's own lines
            location["range"] = suggestion["range"]
        elif f.line:
            location["range"] = {"start": {"line": f.line},
                                 "end": {"line": max(f.end_line or f.line, f.line)}}
        diagnostics.append({
            "message": _text(f),
            "location": location,
            "severity": _RDJSON_SEVERITY[f.severity],
            "code": {"value": f.rule},
            **({"suggestions": [suggestion]} if suggestion is not None else {}),
            "original_output": f"{f.severity} {f.rule}: {redact(f.message)}",
        })
    return {"source": {"name": "acode review"}, "severity": "ERROR" if not result.approved else "INFO",
            "diagnostics": diagnostics}


def render_rdjson(result: ReviewResult) -> str:
    return json.dumps(to_rdjson(result), indent=2, ensure_ascii=False)


RENDERERS = {"github": render_github, "gitlab": render_gitlab, "junit": render_junit, "rdjson": render_rdjson}
