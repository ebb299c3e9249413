"""How well does `acode review` tell good changes from bad ones? (HumanEvalPack, both directions)

For each sampled task a temporary repository is built whose `main` holds the function (its docstring is
the specification, no tests) with one solution, and whose branch changes it to the other solution:
canonical -> buggy must be REJECTED, buggy -> canonical APPROVED. Several designs can be compared in
one run (--designs). Prints JSON: confusion matrix, balanced accuracy, false-reject rate,
per-bug_type recall, localisation (how often a counting finding points at the changed lines) and median
seconds per review, per design.

    python benchmarks/review_accuracy.py --limit 10 --model qwen2.5-coder-0.5b
    python benchmarks/review_accuracy.py --split tune --designs checks_only+likelihood,single_call+off,verdict
    python benchmarks/review_accuracy.py --rescore records.jsonl --statistic mean --margin 0.05

Data: ../shared/data/humanevalpack-python.jsonl relative to the repository (read in place, never copied).
Split: tasks with an even number (Python/0, Python/2, ...) are the tuning half, odd ones the report half.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATASETS = {
    "humanevalpack": REPO.parent / "shared" / "data" / "humanevalpack-python.jsonl",
    "novel": REPO / "benchmarks" / "data" / "novel_bugs.jsonl",
}


def load_tasks(data: str, split: str, limit: int | None) -> list[dict]:
    rows = [json.loads(line) for line in DATASETS[data].read_text(encoding="utf-8").splitlines() if line.strip()]
    rows.sort(key=lambda r: int(r["task_id"].split("/")[1]))
    if split != "all":
        parity = 0 if split == "tune" else 1
        rows = [r for r in rows if int(r["task_id"].split("/")[1]) % 2 == parity]
    return rows[:limit] if limit else rows


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def build_repo(root: Path, task: dict, before: str, after: str) -> Path:
    """main: prompt + ``before``; checked-out branch `change`: prompt + ``after``."""
    root.mkdir(parents=True)
    name = f"{task['entry_point']}.py"
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "commit.gpgsign", "false")
    (root / name).write_text(task["prompt"] + before, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", f"Add {task['entry_point']}")
    git(root, "switch", "-q", "-c", "change")
    (root / name).write_text(task["prompt"] + after, encoding="utf-8")
    git(root, "commit", "-q", "-am", f"Change the implementation of {task['entry_point']}")
    return root


def review_one(model, repo: Path, strategy: str, decision: str, timeout: float, regression: str = "auto") -> dict:
    from acode.config.review import ReviewerSettings
    from acode.review.diffparse import changed_new_lines
    from acode.review.git_context import branch_context
    from acode.review.service import review_change

    settings = ReviewerSettings(strategy=strategy, decision_strategy=decision, timeout_seconds=timeout,
                                regression={"method": regression})
    context = branch_context(repo, "main")
    started = time.monotonic()
    result = review_change(context, model, settings)
    changed = {(f.path, n) for f in context.files for n in changed_new_lines(f.diff)}
    counting = [f for f in result.all_findings() if f.source == "model" and f.counts]
    return {
        "verdict": result.decision.verdict,
        "status": result.status,
        "seconds": round(time.monotonic() - started, 2),
        "reasons": result.decision.reasons,
        "levels": {d.name: d.level for d in result.dimensions},
        "findings": [f.model_dump(include={"dimension", "source", "rule", "severity", "file", "line", "grounding",
                                           "confidence", "status", "message", "quote", "metrics"})
                     for f in result.all_findings()],
        "localised": any((f.file, f.line) in changed for f in counting) if counting else None,
        "tokens": result.tokens.model_dump(),
    }


def rescore(record: dict, settings) -> str:
    """The decision the findings of a stored review give under other thresholds (no model call: the
    decision is a pure function of the checked findings, the evidence and the settings)."""
    from acode.review.decision import REGRESSION_RULE, decide_from_levels, dimension_level
    from acode.review.models import DimensionResult, Finding
    from acode.review.regression import is_regression

    findings = [Finding(**{k: v for k, v in f.items() if v is not None or k in ("confidence", "line")})
                for f in record["findings"]]
    for f in findings:
        if f.rule == REGRESSION_RULE and f.status != "unchecked":
            f.status = "confirmed" if is_regression(f.metrics, settings.regression) else "dismissed"
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


def summarise(records: list[dict]) -> dict:
    buggy = [r for r in records if r["expected"] == "REJECTED"]
    sound = [r for r in records if r["expected"] == "APPROVED"]
    tp = sum(r["verdict"] == "REJECTED" for r in buggy)
    fn = len(buggy) - tp
    tn = sum(r["verdict"] == "APPROVED" for r in sound)
    fp = len(sound) - tn
    recall = tp / len(buggy) if buggy else 0.0
    specificity = tn / len(sound) if sound else 0.0
    by_type: dict[str, list[bool]] = {}
    for r in buggy:
        by_type.setdefault(r["bug_type"], []).append(r["verdict"] == "REJECTED")
    with_findings = [r for r in records if r["localised"] is not None]
    proposed = [f for r in records for f in r["findings"] if f.get("source") == "model"]
    return {
        "reviews": len(records),
        "confusion": {"buggy_rejected": tp, "buggy_approved": fn, "sound_approved": tn, "sound_rejected": fp},
        "balanced_accuracy": round((recall + specificity) / 2, 4),
        "recall_on_buggy": round(recall, 4),
        "false_reject_rate": round(fp / len(sound), 4) if sound else None,
        "recall_by_bug_type": {k: round(sum(v) / len(v), 3) for k, v in sorted(by_type.items())},
        "localisation": round(sum(r["localised"] for r in with_findings) / len(with_findings), 4)
        if with_findings else None,
        "reviews_with_counting_findings": len(with_findings),
        "proposed_findings_on_changed_lines": round(sum(f["grounding"] == "changed" for f in proposed) / len(proposed), 4)
        if proposed else None,
        "bug_line_found": round(sum(bool(r["localised"]) for r in buggy) / len(buggy), 4) if buggy else None,
        "median_seconds": statistics.median(r["seconds"] for r in records) if records else None,
        "timeouts": sum(r["status"] == "timeout" for r in records),
        "prompt_tokens_evaluated": sum(r["tokens"]["evaluated"] for r in records),
        "prompt_tokens_reused": sum(r["tokens"]["reused"] for r in records),
    }


DESIGN_HELP = ("comma list of designs, each STRATEGY+REGRESSION or verdict: STRATEGY is single_call, per_dimension "
               "or checks_only (no proposal call); REGRESSION is likelihood, question or off; verdict is the model's "
               "overall APPROVED/REJECTED answer (the naive baseline)")


def parse_design(name: str) -> tuple[str, str, str]:
    """(strategy, decision strategy, regression method) of a design name."""
    if name == "verdict":
        return "per_dimension", "verdict", "off"
    strategy, _, regression = name.partition("+")
    if strategy not in ("single_call", "per_dimension", "checks_only") or regression not in ("likelihood", "question", "off"):
        raise SystemExit(f"unknown design {name!r}: {DESIGN_HELP}")
    return strategy, "findings", regression


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="tasks to sample (each gives two changes)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="bundled model name or .gguf path")
    parser.add_argument("--data", default="humanevalpack", choices=sorted(DATASETS),
                        help="humanevalpack (../shared/data) or novel (benchmarks/data/novel_bugs.jsonl, written for "
                        "acode: a control set no model has memorised)")
    parser.add_argument("--split", choices=["tune", "report", "all"], default="report")
    parser.add_argument("--designs", default="checks_only+likelihood,checks_only+question", help=DESIGN_HELP)
    parser.add_argument("--context-window", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="llama.cpp threads (default: every core; figures need a quiet machine)")
    parser.add_argument("--timeout", type=float, default=600.0, help="per review")
    parser.add_argument("--records", type=Path, help="also write every review as JSON lines here (for tuning)")
    parser.add_argument("--rescore", type=Path, help="no model: re-decide the reviews in this records file")
    parser.add_argument("--confirm", type=float, help="with --rescore: thresholds.confirm")
    parser.add_argument("--poor", type=float, help="with --rescore: thresholds.poor")
    parser.add_argument("--margin", type=float, help="with --rescore: regression.margin")
    parser.add_argument("--statistic", choices=["sum", "mean"], help="with --rescore: regression.statistic")
    parser.add_argument("--tune", action="store_true",
                        help="with --rescore: choose regression.statistic and margin on the tuning half (even task "
                        "numbers) of the records, then report the other half with that choice")
    args = parser.parse_args(argv)
    if args.rescore:
        return rescore_file(args)

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    settings = {"name": args.model, "context_window": args.context_window, "threads": args.threads}
    if args.model.endswith(".gguf"):
        settings["path"] = args.model
    model = build_model(ModelSettings(**settings))
    designs = {name: parse_design(name) for name in args.designs.split(",")}
    records: dict[str, list[dict]] = {name: [] for name in designs}
    tasks = load_tasks(args.data, args.split, args.limit)
    out = args.records.open("w", encoding="utf-8") if args.records else None
    with tempfile.TemporaryDirectory(prefix="acode-review-accuracy-") as tmp:
        for index, task in enumerate(tasks):
            for direction, before, after, expected in (
                ("to_buggy", task["canonical_solution"], task["buggy_solution"], "REJECTED"),
                ("to_canonical", task["buggy_solution"], task["canonical_solution"], "APPROVED"),
            ):
                repo = build_repo(Path(tmp) / f"{index}-{direction}", task, before, after)
                for design, (strategy, decision, regression) in designs.items():
                    record = {"task_id": task["task_id"], "bug_type": task["bug_type"], "direction": direction,
                              "expected": expected, "design": design,
                              **review_one(model, repo, strategy, decision, args.timeout, regression)}
                    records[design].append(record)
                    print(f"{task['task_id']:>11} {direction:<12} {design:<26} {record['verdict']:<8} "
                          f"(expected {expected}) {record['seconds']:6.1f}s", file=sys.stderr, flush=True)
                    if out:
                        out.write(json.dumps(record) + "\n")
                        out.flush()
    if out:
        out.close()
    report = {
        "benchmark": "review_accuracy",
        "model": args.model,
        "data": args.data,
        "split": args.split,
        "tasks": len(tasks),
        "designs": {name: summarise(rows) for name, rows in records.items()},
    }
    print(json.dumps(report, indent=2))
    return 0


MARGINS = {"sum": (0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0), "mean": (0.0, 0.01, 0.02, 0.05, 0.1, 0.2)}


def task_parity(row: dict) -> int:
    return int(row["task_id"].rsplit("/", 1)[1]) % 2


def tune_file(rows: list[dict]) -> int:
    """Grid search on the tuning half per design; report the other half with the winner."""
    from acode.config.review import ReviewerSettings

    out: dict[str, dict] = {}
    for design in dict.fromkeys(r["design"] for r in rows):
        if design == "verdict":
            continue
        mine = [r for r in rows if r["design"] == design]
        tune, report = [r for r in mine if task_parity(r) == 0], [r for r in mine if task_parity(r) == 1]
        best = None
        measured = {k.removeprefix("delta_") for r in mine for f in r["findings"] for k in (f.get("metrics") or {})
                    if k.startswith("delta_")}
        for statistic, margins in ((k, v) for k, v in MARGINS.items() if k in measured):
            for margin in margins:
                settings = ReviewerSettings(regression={"statistic": statistic, "margin": margin})
                score = summarise([{**r, "verdict": rescore(r, settings)} for r in tune])["balanced_accuracy"]
                if best is None or score > best[0]:
                    best = (score, statistic, margin, settings)
        score, statistic, margin, settings = best
        out[design] = {"chosen_on_tune": {"statistic": statistic, "margin": margin, "tune_balanced_accuracy": score},
                       "report": summarise([{**r, "verdict": rescore(r, settings)} for r in report])}
    print(json.dumps({"benchmark": "review_accuracy (tuned on even tasks, reported on odd)", "designs": out}, indent=2))
    return 0


def rescore_file(args) -> int:
    from acode.config.review import ReviewerSettings

    settings = ReviewerSettings()
    if args.confirm is not None:
        settings.thresholds.confirm = args.confirm
    if args.poor is not None:
        settings.thresholds.poor = args.poor
    if args.margin is not None:
        settings.regression.margin = args.margin
    if args.statistic is not None:
        settings.regression.statistic = args.statistic
    rows = [json.loads(line) for line in args.rescore.read_text().splitlines() if line.strip()]
    if args.tune:
        return tune_file(rows)
    by_design: dict[str, list[dict]] = {}
    for row in rows:
        if row["design"] != "verdict":
            row = {**row, "verdict": rescore(row, settings)}
        by_design.setdefault(row["design"], []).append(row)
    print(json.dumps({"benchmark": "review_accuracy (rescored)", "records": str(args.rescore),
                      "thresholds": settings.thresholds.model_dump(),
                      "regression": settings.regression.model_dump(include={"statistic", "margin"}),
                      "designs": {name: summarise(r) for name, r in by_design.items()}}, indent=2))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    raise SystemExit(main())
