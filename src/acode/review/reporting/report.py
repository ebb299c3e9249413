"""Render a ReviewResult: for the terminal (rich), as Markdown, as SARIF 2.1.0, or as JSON. Everything
printed goes through the secret redaction."""

from __future__ import annotations

import json
from typing import Any, get_args

from acode import __version__
from acode.review.evidence.dismissed import DISMISSED_FILE
from acode.review.models import Finding, ReviewResult, Severity
from acode.review.reporting.escaping import md_cell, md_code, md_fenced, md_text
from acode.review.reporting.suggestions import markdown_block, offered, sarif_fix
from acode.secrets import redact, redact_data

MARKS = {"excellent": "✔", "good": "✔", "acceptable": "~", "needs_work": "!", "poor": "✘", None: "?"}
STYLES = {"excellent": "green", "good": "green", "acceptable": "yellow", "needs_work": "dark_orange",
          "poor": "red", None: "magenta"}
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}


def review_title(result: ReviewResult) -> str:
    if result.target == "uncommitted":
        return "uncommitted changes"
    if result.target == "staged":
        return "staged changes"
    if result.target == "commit":
        return f"commit {result.head_sha[:12]}"
    if result.target == "pipeline":
        return "the pipeline's change"
    head = result.head_ref or result.head_sha[:12]
    return f"{head} against {result.base_ref}" if result.base_ref else head


def by_severity(findings: list[Finding]) -> list[Finding]:
    """Most severe first (critical, high, medium, low, info); the review's own order within a level."""
    order = get_args(Severity)
    return sorted(findings, key=lambda f: order.index(f.severity) if f.severity in order else len(order))


def _where(finding: Finding) -> str:
    if finding.file and finding.line:
        return f"{finding.file}:{finding.line}"
    return finding.file or "(change)"


def waived_count(result: ReviewResult) -> int:
    """Findings the team dismissed (.acode/review-dismissed.yml): shown as a count, never counted."""
    return sum(1 for f in result.all_findings() if f.status == "waived")


def skipped(result: ReviewResult) -> list[str]:
    """What the review's time plan left out (empty for a review that did everything)."""
    return list(result.plan.skipped) if result.plan else []


def reused_line(review_id: int, created_at: str, result: ReviewResult) -> str:
    """What a person is told when the stored review of the same change is shown instead of a new one."""
    when = created_at[:16].replace("T", " ") + (" UTC" if created_at.endswith("+00:00") else "")
    return (f"reused review #{review_id} of {when} (same change, same settings; it took "
            f"{result.duration_seconds:.1f} s then): `acode review --fresh` reviews again")


def render_terminal(result: ReviewResult, console: Any, *, reused: tuple[int, str] | None = None) -> None:
    """Per-dimension marks, level and a short note, then counting findings, evidence and the decision.
    ``reused``: (id, created_at) of the stored review shown instead of a new one."""
    from rich.markup import escape

    if reused is not None:
        console.print(f"[bold yellow]{escape(reused_line(*reused, result))}[/]")
    took = "" if reused is not None else f", {result.duration_seconds:.1f} s"
    title = escape(review_title(result))
    console.print(f"[bold]Review of {title}[/]  [dim]model {escape(result.model)}{took}[/]")
    for dim in result.dimensions:
        level = dim.level or dim.status
        console.print(f" [{STYLES[dim.level]}]{MARKS[dim.level]}[/] {dim.name.replace('_', ' '):<17} "
                      f"[{STYLES[dim.level]}]{level:<10}[/] {escape(redact(dim.explanation))}")
    counting = by_severity([f for f in result.all_findings() if f.counts and f.severity != "info"])
    if counting:
        console.print("[bold]Findings[/]")
        for f in counting:
            conf = f" p={f.confidence:.2f}" if f.source == "model" and f.confidence is not None else ""
            console.print("  "
                          f"[{'red' if f.severity in ('critical', 'high') else 'yellow'}]{f.severity:<8}[/] "
                          f"{escape(_where(f))} [dim]{escape(f.rule)}{conf}[/] {escape(redact(f.message))}")
            if f.suggestion:
                applies = " [dim](a safe fix: `acode review --fix` applies it)[/]" if (
                    f.fix is not None and f.fix.applicability == "safe") else ""
                console.print(f"           [dim]fix:[/] {escape(redact(f.suggestion))}{applies}")
            if f.test:
                console.print(f"           [dim]{TEST_LABEL}:[/]")
                for line in redact(f.test).splitlines():
                    console.print(f"             {escape(line)}", soft_wrap=True, highlight=False)
    waived = waived_count(result)
    if waived:
        console.print(f"[dim]{waived} finding(s) the team dismissed ({DISMISSED_FILE} at the base), not "
                      "counted[/]")
    dismissed = sum(1 for f in result.all_findings() if f.status in ("dismissed", "ungrounded"))
    if dismissed:
        console.print(
            f"[dim]{dismissed} raised finding(s) did not survive their check or quoted no changed line[/]")
    if result.packing.omitted:
        names = ", ".join(f"{p} ({why})" for p, why in result.packing.omitted.items())
        console.print(f"[dim]not sent to the model: {escape(names)}[/]")
    for path, note in result.cut.items():
        console.print(f"[yellow]diff cut:[/] {escape(path)}: {escape(note)}")
    if result.tests:
        console.print(f"tests: {escape(describe_tests(result.tests))}")
    for line in describe_behaviour(result.behaviour):
        console.print(f"behaviour: {escape(redact(line))}")
    if result.plan and result.plan.regression_note:
        console.print(f"[dim]regression check not run: {escape(result.plan.regression_note)}[/]")
    for item in skipped(result):
        console.print(f"[dim]skipped: {escape(item)}[/]")
    verdict_style = "bold green" if result.approved else "bold red"
    label = {"timeout": "TIMEOUT (nothing assessed in time)",
             "partial": f"{result.decision.verdict} (partial: not everything was assessed, see skipped; "
                        "decided on what was)",
             }.get(result.status, result.decision.verdict)
    console.print(f"[{verdict_style}]{label}[/]")
    for reason in result.decision.reasons:
        console.print(f"  - {escape(redact(reason))}")


TEST_LABEL = "test to paste (fails with the change, passes before it)"


def describe_tests(tests: dict) -> str:
    """One line on the test runs: the command, its exit code with the change and on the base."""
    if not tests.get("command"):
        return tests.get("note") or "not run"
    if tests.get("could_not_run"):
        return f"`{tests['command']}`: tests could not run: {tests['could_not_run']}, on both sides"
    base = tests.get("base")
    sides = f"exit {tests['exit_code']} with the change" + (
        f", {base['exit_code']} on the base" if base else "")
    counts = [f"{len(tests[k])} {label}" for k, label in (("regressed", "broken by the change"),
                                                          ("fixed", "fixed by it"),
                                                          ("failing_before", "failing before"))
              if tests.get(k)]
    note = f" ({tests['note']})" if tests.get("note") else ""
    types = tests.get("types")
    typed = "" if not types else (
        f"; mypy on {len(types['files'])} file(s): " + (types["note"] or ", ".join(
            f"{len(types[k])} {label}" for k, label in (("introduced", "type errors brought by the change"),
                                                        ("removed", "removed by it")) if types[k])
            or "no difference"))
    return f"`{tests['command']}` {sides}" + (f": {', '.join(counts)}" if counts else "") + note + typed


def describe_behaviour(record: dict | None) -> list[str]:
    """Lines on the behavioural diff: how many functions were compared, each difference with its input and
    both outcomes, and each function that could not be run with the reason."""
    if not record:
        return []
    functions = record.get("functions") or []
    if not functions:
        return [record["note"]] if record.get("note") else []
    ran = [f for f in functions if f["status"] != "not_run"]
    differ = sum(f["status"] == "differs" for f in ran)
    summary = (f"{len(ran)} changed function(s) run old and new, {differ} differ, "
               f"{len(functions) - len(ran)} could not be run")
    lines = [summary]
    for item in functions:
        where = f"{item['file']}:{item['line']} {item['function']}()"
        if item["status"] == "differs" and item.get("difference"):
            d = item["difference"]
            lines.append(f"{where}: {d['input']} — before: {d['old']}; after: {d['new']} ({d['found_by']})")
        elif item["status"] == "same":
            lines.append(f"{where}: no difference on {item['tried']} input(s)")
        else:
            lines.append(f"{where}: could not be run: {item['why']}")
    if record.get("intent"):
        lines.append(f"intent: {record['intent']['note']}")
    return lines


def render_markdown(result: ReviewResult) -> str:
    """The review as Markdown (``-f markdown``, GitHub's job summary). Every text that comes from the change
    or the model goes through ``escaping.md_text`` / ``md_code``: it cannot add HTML, links or lines."""
    lines = [f"# Review of {md_text(review_title(result))}", "",
             f"**Decision: {result.decision.verdict}**"
             + {"timeout": " (timed out: nothing assessed)",
                "partial": " (partial: decided on what was assessed, see Skipped)",
                }.get(result.status, ""), ""]
    lines += [f"- {md_text(r)}" for r in result.decision.reasons]
    if result.dimensions:
        lines += ["", "| dimension | level | notes |", "|---|---|---|"]
    for dim in result.dimensions:
        level = dim.level or dim.status
        lines.append(f"| {dim.name.replace('_', ' ')} | {level} | {md_cell(dim.explanation)} |")
    counting = by_severity([f for f in result.all_findings() if f.counts])
    if counting:
        lines += ["", "## Findings", ""]
        for f in counting:
            conf = (f", confidence {f.confidence:.2f}" if f.source == "model" and f.confidence is not None
                    else "")
            lines.append(f"- **{f.severity}** {md_code(_where(f))} ({md_text(f.rule)}, {f.source}{conf}): "
                         f"{md_text(f.message)}")
            if f.quote:
                lines.append(f"  - line: {md_code(f.quote)}")
            if f.suggestion:
                lines.append(f"  - suggestion: {md_text(f.suggestion)}")
            fix = offered(f)
            if fix is not None:
                span = f"line {fix.line}" if fix.end_line == fix.line else f"lines {fix.line}-{fix.end_line}"
                label = f"  - fix ({fix.source}, {fix.applicability}), replacing {span} of {md_code(f.file)}:"
                lines += [label, "", *markdown_block(fix, indent="    "), ""]
            if f.test:
                lines += [f"  - {TEST_LABEL}:", "", *md_fenced(f.test, "python", indent="    "), ""]
    if waived_count(result):
        waived = f"{waived_count(result)} finding(s) the team dismissed ({DISMISSED_FILE}), not counted."
        lines += ["", md_text(waived)]
    if result.tests:
        lines += ["", "Tests: " + md_text(describe_tests(result.tests))]
    behaviour = describe_behaviour(result.behaviour)
    if behaviour:
        lines += ["", "## Behavioural diff", "", *[f"- {md_text(line)}" for line in behaviour]]
    if result.plan and result.plan.regression_note:
        lines += ["", "Regression check not run: " + md_text(result.plan.regression_note)]
    if skipped(result):
        lines += ["", "Skipped: " + "; ".join(md_text(item) for item in skipped(result))]
    if result.packing.omitted:
        lines += ["", "Not sent to the model: " + ", ".join(f"{md_code(p)} ({md_text(w)})"
                                                            for p, w in result.packing.omitted.items())]
    if result.cut:
        lines += ["", "Diffs cut for the model: " + "; ".join(f"{md_code(p)}: {md_text(note)}"
                                                              for p, note in result.cut.items())]
    footer = (f"_model {md_text(result.model)}, {result.duration_seconds:.1f} s, prompt tokens evaluated "
              f"{result.tokens.evaluated}, reused {result.tokens.reused}_")
    lines += ["", footer, ""] if result.model else [""]  # no model: nothing was reviewed
    return "\n".join(lines)


def render_json(result: ReviewResult, *, review_id: int | None = None, reused_at: str | None = None,
                fixes: list[dict] | None = None) -> str:
    """``reused_at``: when the stored review shown (``review_id``) was made, if it was not made now;
    ``fixes``: what `acode review --fix` applied and left (the key is there only with --fix)."""
    data = redact_data(result.model_dump(mode="json"))
    reused_from = None
    if reused_at is not None and review_id is not None:
        reused_from = {"id": review_id, "created_at": reused_at,
                       "message": reused_line(review_id, reused_at, result)}
    data = {"id": review_id, "reused": reused_from is not None, "reused_from": reused_from,
            "approved": result.approved, **data}
    if fixes is not None:
        data["fixes"] = redact_data(fixes)
    return json.dumps(data, indent=2, ensure_ascii=False)


def to_sarif(result: ReviewResult) -> dict[str, Any]:
    """Counting findings as SARIF 2.1.0 results (one rule per finding rule), for code-scanning tools."""
    findings = [f for f in result.all_findings() if f.counts]
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in findings:
        if f.rule not in rules:
            rules[f.rule] = {
                "id": f.rule, "name": f.rule.replace("/", "-"),
                "shortDescription": {"text": redact(f.message)[:200] or f.rule},
                "properties": {"source": f.source, "dimension": f.dimension},
            }
        entry: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": list(rules).index(f.rule),
            "level": _SARIF_LEVEL[f.severity],
            "message": {"text": redact(f.message + (f" Suggestion: {f.suggestion}" if f.suggestion else ""))},
            "properties": {"severity": f.severity, "dimension": f.dimension, "source": f.source,
                           "status": f.status},
        }
        if f.confidence is not None:
            entry["properties"]["confidence"] = f.confidence
        fix = offered(f)
        if fix is not None:
            entry["fixes"] = [sarif_fix(f, fix)]
        if f.file:
            location: dict[str, Any] = {"artifactLocation": {"uri": f.file, "uriBaseId": "SRCROOT"}}
            if f.line:
                location["region"] = {"startLine": f.line, "endLine": max(f.end_line or f.line, f.line)}
                if f.quote:
                    location["region"]["snippet"] = {"text": redact(f.quote)}
            entry["locations"] = [{"physicalLocation": location}]
        results.append(entry)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "acode-review", "version": __version__,
                                "semanticVersion": __version__, "rules": list(rules.values())}},
            "results": results,
            "columnKind": "unicodeCodePoints",  # the fixes' columns, as ruff counts them
            "properties": {"decision": result.decision.verdict, "status": result.status,
                           "diffsCut": result.cut, "reasons": [redact(r) for r in result.decision.reasons],
                           "model": result.model, "levels": {d.name: d.level for d in result.dimensions},
                           "behaviour": redact_data(result.behaviour) if result.behaviour else None},
        }],
    }


def render_sarif(result: ReviewResult) -> str:
    return json.dumps(to_sarif(result), indent=2, ensure_ascii=False)
