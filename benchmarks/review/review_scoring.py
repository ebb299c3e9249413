"""Figures for review_accuracy records, and re-deciding stored reviews without the model.

The decision is a pure function of the checked findings, the evidence and the settings, so a records
file (``review_accuracy.py --records``) can be re-decided under other thresholds, and thresholds can be
chosen on one half of the tasks and reported on the other, without asking the model again.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

FINDING_FIELDS = {"dimension", "source", "rule", "severity", "file", "line", "grounding", "confidence",
                  "status", "message", "quote", "metrics"}


def review_record(result, seconds: float) -> dict:
    """What a benchmark keeps of one review: enough to re-decide it without the model (``rescore``)."""
    return {
        "verdict": result.decision.verdict,
        "status": result.status,
        "seconds": round(seconds, 2),
        "reasons": result.decision.reasons,
        "levels": {d.name: d.level for d in result.dimensions},
        "findings": [f.model_dump(include=FINDING_FIELDS) for f in result.all_findings()],
        "counting": [f.model_dump(include=FINDING_FIELDS) for f in result.all_findings() if f.counts],
        "plan": result.plan.model_dump() if getattr(result, "plan", None) else None,
        "tokens": result.tokens.model_dump(),
        "tests": _tests_summary(getattr(result, "tests", None)),
        "behaviour": getattr(result, "behaviour", None),
    }


def _tests_summary(tests: dict | None) -> dict | None:
    """The test runs of `--run-tests` in brief: exit codes and which tests changed outcome."""
    if not tests:
        return None
    base = tests.get("base") or {}
    return {"command": tests.get("command"), "exit_code": tests.get("exit_code"),
            "base_exit_code": base.get("exit_code"), "regressed": tests.get("regressed", []),
            "fixed": tests.get("fixed", []), "failing_before": len(tests.get("failing_before", [])),
            "ran": tests.get("ran", []), "types": tests.get("types"), "related": tests.get("related"),
            "agree": tests.get("agree"), "passed_both": tests.get("passed_both")}


MARGINS = {"sum": (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 10.0, 15.0, 20.0),
           "mean": (0.0, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)}


def task_parity(row: dict) -> int:
    """0 for the tuning half (even task numbers), 1 for the report half."""
    return int(row["task_id"].rsplit("/", 1)[1]) % 2


def rescore(record: dict, settings, *, without: str = "", guess: str = "",
            question_margin: float | None = None) -> str:
    """The verdict the findings of a stored review give under ``settings``. ``without``: leave out the
    findings whose rule starts with it (e.g. ``behaviour/``: the review without the behavioural diff; a
    likelihood regression then stands on its own: medium unless other evidence backs it). ``guess``:
    ``high`` re-decides with a likelihood regression high on its own (as before issue 31); ``medium`` with
    the rule of ``backed_or_medium`` (high only where a difference or a high finding backs it; records made
    before differences carried their function's span are matched on the ``def`` line only).
    ``question_margin``: re-judge each behavioural difference the model was asked about with this margin."""
    from acode.review.deciding.levels import decide_from_levels, dimension_level
    from acode.review.evidence.behaviour.findings import ASK, RULE
    from acode.review.judging.behaviour_question import _judged, backed_or_medium
    from acode.review.judging.regression import RULE as REGRESSION_RULE
    from acode.review.judging.regression import is_regression
    from acode.review.models import DimensionResult, Finding

    findings = [Finding(**{k: v for k, v in f.items() if v is not None or k in ("confidence", "line")})
                for f in record["findings"] if in_scope(f, settings.regression.max_edit_lines)
                and not (without and f["rule"].startswith(without))]
    for index, f in enumerate(findings):
        asked = {"old": f.metrics.get("old_logit"), "new": f.metrics.get("new_logit")}
        if f.rule == RULE and question_margin is not None and None not in asked.values():
            base = f.model_copy(update={"severity": "medium", "status": "confirmed", "metrics": {ASK: 1.0}})
            findings[index] = _judged(base, asked, question_margin)  # type: ignore[arg-type]
    for index, f in enumerate(findings):
        if f.rule == REGRESSION_RULE and f.status == "confirmed" and (guess or without):
            f.severity = "high"
            findings[index] = f if guess == "high" else backed_or_medium(f, findings)
    fixes = {(f.file, f.line) for f in findings if f.rule.startswith("fixed/")}
    for f in findings:
        if f.rule == REGRESSION_RULE and f.status != "unchecked":
            # the evidence shows a fix in the region
            fixed = (f.file, int(f.metrics.get("fixed_line", -1))) in fixes
            f.status = ("confirmed" if is_regression(f.metrics, settings.regression) and not fixed
                        else "dismissed")
        elif f.source == "model" and f.confidence is not None and f.status in ("confirmed", "dismissed"):
            f.status = "confirmed" if f.confidence >= settings.thresholds.confirm else "dismissed"
    evidence = [f for f in findings if f.source != "model"]
    dims = []
    for name, level in record["levels"].items():
        if level is None:
            dims.append(DimensionResult(name=name, status="failed"))
            continue
        own = [f for f in findings if f.dimension == name]
        dims.append(DimensionResult(name=name, level=dimension_level(own, settings.thresholds)))
    return decide_from_levels(dims, evidence, settings).verdict


def in_scope(finding: dict, max_edit_lines: int) -> bool:
    """False for a regression finding the check would not make today: on inserted lines (nothing removed) or
    on an edit larger than ``max_edit_lines`` (records made with a wider scope are re-decided exactly)."""
    metrics = finding.get("metrics") or {}
    if finding.get("rule") != "review/regression" or "added_lines" not in metrics:
        return True
    if metrics["removed_lines"] == 0:
        return False
    return max_edit_lines == 0 or (metrics["removed_lines"] <= max_edit_lines
                                   and metrics["added_lines"] <= max_edit_lines)


def summarise(records: list[dict]) -> dict:
    """Confusion matrix, balanced accuracy, false-reject rate, recall per bug type, localisation, time."""
    buggy = [r for r in records if r["expected"] == "REJECTED"]
    sound = [r for r in records if r["expected"] == "APPROVED"]
    tp = sum(r["verdict"] == "REJECTED" for r in buggy)
    tn = sum(r["verdict"] == "APPROVED" for r in sound)
    fp = len(sound) - tn
    recall = tp / len(buggy) if buggy else None
    specificity = tn / len(sound) if sound else None
    by_type: dict[str, list[bool]] = {}
    for r in buggy:
        by_type.setdefault(r["bug_type"], []).append(r["verdict"] == "REJECTED")
    with_findings = [r for r in records if r["localised"] is not None]
    proposed = [f for r in records for f in r["findings"] if f.get("source") == "model"]
    return {
        "reviews": len(records),
        "confusion": {"buggy_rejected": tp, "buggy_approved": len(buggy) - tp, "sound_approved": tn,
                      "sound_rejected": fp},
        "balanced_accuracy": round((recall + specificity) / 2, 4) if buggy and sound else None,
        "recall_on_buggy": _round(recall),
        "false_reject_rate": _round(fp / len(sound)) if sound else None,
        "recall_by_bug_type": {k: round(sum(v) / len(v), 3) for k, v in sorted(by_type.items())},
        "localisation": _round(sum(r["localised"] for r in with_findings) / len(with_findings))
        if with_findings else None,
        "reviews_with_counting_findings": len(with_findings),
        "proposed_findings_on_changed_lines": _round(
            sum(f["grounding"] == "changed" for f in proposed) / len(proposed))
        if proposed else None,
        "bug_line_found": _round(sum(bool(r["localised"]) for r in buggy) / len(buggy)) if buggy else None,
        "median_seconds": statistics.median(r["seconds"] for r in records) if records else None,
        "timeouts": sum(r["status"] == "timeout" for r in records),
        "prompt_tokens_evaluated": sum(r["tokens"]["evaluated"] for r in records),
        "prompt_tokens_reused": sum(r["tokens"]["reused"] for r in records),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


EDIT_LINES = (1, 2, 3, 4, 6, 8)


def source_of(row: dict) -> str:
    """humanevalpack, novel, security, logic or commits, from the task id."""
    return {"Python": "humanevalpack", "Novel": "novel", "Security": "security", "Logic": "logic",
            "commit": "commits"}[row["task_id"].rsplit("/", 1)[0]]


def objective(rows: list[dict]) -> float:
    """Mean of the rates that matter, each kind of change weighing the same: bugs rejected, the bug pairs'
    fixes approved, and real commits approved (when there are any)."""
    rates = [sum(r["verdict"] == r["expected"] for r in group) / len(group) for group in (
        [r for r in rows if r["expected"] == "REJECTED"],
        [r for r in rows if r["expected"] == "APPROVED" and source_of(r) != "commits"],
        [r for r in rows if source_of(r) == "commits"],
    ) if group]
    return sum(rates) / len(rates) if rates else 0.0


def candidates(rows: list[dict]):
    """Every (statistic, margin, max_edit_lines) the records can be re-decided under."""
    from acode.config.review import ReviewerSettings

    measured = {k.removeprefix("delta_") for r in rows for f in r["findings"]
                for k in (f.get("metrics") or {})
                if k.startswith("delta_")}
    for statistic, margins in MARGINS.items():
        if statistic not in measured:
            continue
        for margin in margins:
            for lines in EDIT_LINES:
                yield ReviewerSettings(
                    regression={"statistic": statistic, "margin": margin, "max_edit_lines": lines})


def tune(rows: list[dict], tune_on: tuple[str, ...] = ("humanevalpack", "commits")) -> dict:
    """Per design: the settings with the best objective on the tuning half (even task numbers) of the
    ``tune_on`` sources, and every source's report half (odd numbers; all of a source not tuned on) under
    that choice."""
    out: dict[str, dict] = {}
    for design in dict.fromkeys(r["design"] for r in rows):
        if design == "verdict":
            continue
        mine = [r for r in rows if r["design"] == design]
        tune_half = [r for r in mine if source_of(r) in tune_on and task_parity(r) == 0]
        best = max(((objective([{**r, "verdict": rescore(r, s)} for r in tune_half]), i, s)
                    for i, s in enumerate(candidates(tune_half))), key=lambda t: (t[0], -t[1]), default=None)
        if best is None:
            continue
        score, _, settings = best
        reported = {}
        for source in dict.fromkeys(source_of(r) for r in mine):
            held_out = [r for r in mine if source_of(r) == source
                        and (source not in tune_on or task_parity(r) == 1)]
            reported[source] = summarise([{**r, "verdict": rescore(r, settings)} for r in held_out])
        out[design] = {"chosen_on_tune": {**settings.regression.model_dump(include={"statistic", "margin",
                                                                                   "max_edit_lines"}),
                                          "tune_objective": round(score, 4), "tuned_on": list(tune_on)},
                       "report": reported}
    return {"benchmark": "review_accuracy (tuned on even task numbers, reported on odd ones and on untuned "
                         "sources)",
            "designs": out}


def rescore_rows(rows: list[dict], settings, **options) -> dict:
    """Figures per source and design with every review re-decided under ``settings`` (``options``: those of
    ``rescore``)."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        if row["design"] != "verdict":
            row = {**row, "verdict": rescore(row, settings, **options)}
        groups.setdefault(f"{source_of(row)} {row['design']}", []).append(row)
    return {"benchmark": "review_accuracy (rescored)", "thresholds": settings.thresholds.model_dump(),
            "regression": settings.regression.model_dump(include={"statistic", "margin", "max_edit_lines"}),
            "groups": {name: summarise(r) for name, r in groups.items()}}


def load_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def with_evidence_from(rows: list[dict], others: list[dict]) -> list[dict]:
    """``rows`` with their deterministic evidence replaced by the evidence another run (e.g. another version
    of the evidence code, ``--designs checks_only+off``) found on the same changes: the model's findings are
    kept, so two versions of the evidence are compared on one set of model runs."""
    evidence = {(o["task_id"], o["direction"]): [f for f in o["findings"] if f.get("source") != "model"]
                for o in others}
    out = []
    for row in rows:
        key = (row["task_id"], row["direction"])
        if key not in evidence:
            raise SystemExit(f"no evidence record for {key[0]} {key[1]}")
        model = [f for f in row["findings"] if f.get("source") == "model"]
        out.append({**row, "findings": model + evidence[key]})
    return out
