"""How well does `acode review` tell good changes from bad ones?

Data (``--data``):
- humanevalpack: ../shared/data/humanevalpack-python.jsonl, read in place. For each task a temporary
  repository holds the function (its docstring is the specification, no tests) with one solution on
  `main`, and a branch changes it to the other: canonical -> buggy must be REJECTED, buggy -> canonical
  APPROVED.
- novel: benchmarks/data/novel_bugs.jsonl, the same layout, 48 pairs written for acode (a control set no
  model has memorised).
- security: benchmarks/data/security_pairs.jsonl, the same layout, 39 pairs written for acode from public
  vulnerability classes (CWE top 25 that apply to Python); ``bug_type`` is the CWE, so the per-bug-type
  recall is the per-CWE recall. secure -> vulnerable must be REJECTED, vulnerable -> secure APPROVED.
- logic: benchmarks/data/logic_pairs.jsonl, the same layout, 10 logic defects with their sound twins
  written for acode (issue 31: `and` for `or` in an auth check, `x or default` with 0 valid, a dict
  mutated while iterated, a loop returning on its first item, a cache key missing a parameter, ...): what
  no analyzer rule sees. No docstring examples, no tests: only running the code (``+diff``) shows them.
- state: benchmarks/data/state_pairs.jsonl, the same layout, 6 defects with sound twins that only state kept
  between calls (a counter never reset, a stale cache entry, a registry that forgets), a hang (a loop that
  no longer makes progress) or a state-building docstring example shows (issue 49).
- commits: real commits of a repository (``--repo``, default this one) that modify Python files, each
  reviewed on its own (`acode review --commit`) and expected APPROVED: these changes passed their tests,
  so a rejection is a false reject on ordinary work (features, refactors, fixes), which the bug datasets
  cannot show.

Several designs are compared in one run (--designs). Prints JSON: confusion matrix, balanced accuracy,
false-reject rate, per-bug_type recall, localisation (how often a counting finding points at the changed
lines) and median seconds per review, per design. Split: even task numbers tune, odd ones report.

    python benchmarks/review/review_accuracy.py --limit 10 --model qwen2.5-coder-0.5b
    python benchmarks/review/review_accuracy.py --split all \\
        --designs checks_only+likelihood,checks_only+question
    python benchmarks/review/review_accuracy.py --data commits --limit 20 --designs checks_only+likelihood
    python benchmarks/review/review_accuracy.py --rescore records.jsonl --statistic mean --margin 0.05
    python benchmarks/review/review_accuracy.py --rescore records.jsonl --tune
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.review.review_scoring import review_record, task_parity

REPO = Path(__file__).resolve().parents[2]
DATASETS = {
    "humanevalpack": REPO.parent / "shared" / "data" / "humanevalpack-python.jsonl",
    "novel": REPO / "benchmarks" / "data" / "novel_bugs.jsonl",
    "security": REPO / "benchmarks" / "data" / "security_pairs.jsonl",
    "logic": REPO / "benchmarks" / "data" / "logic_pairs.jsonl",
    "state": REPO / "benchmarks" / "data" / "state_pairs.jsonl",
}


def load_tasks(data: str, split: str, limit: int | None, skip: int = 0,
               path: Path | None = None) -> list[dict]:
    rows = [json.loads(line) for line in (path or DATASETS[data]).read_text(encoding="utf-8").splitlines()
            if line.strip()]
    rows.sort(key=lambda r: int(r["task_id"].split("/")[1]))
    rows = _split(rows, split)[skip:]
    return rows[:limit] if limit else rows


def _split(rows: list[dict], split: str) -> list[dict]:
    if split == "all":
        return rows
    parity = 0 if split == "tune" else 1
    return [r for r in rows if task_parity(r) == parity]


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


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


def pair_changes(tasks: list[dict], tmp: Path) -> Iterator[tuple[dict, object]]:
    """(record head, review context) for both directions of every bug pair."""
    from acode.review.change.git_context import branch_context

    for index, task in enumerate(tasks):
        for direction, before, after, expected in (
            ("to_buggy", task["canonical_solution"], task["buggy_solution"], "REJECTED"),
            ("to_canonical", task["buggy_solution"], task["canonical_solution"], "APPROVED"),
        ):
            repo = build_repo(tmp / f"{index}-{direction}", task, before, after)
            yield ({"task_id": task["task_id"], "bug_type": task["bug_type"], "direction": direction,
                    "expected": expected}, branch_context(repo, "main"))


def python_commits(repo: Path, limit: int | None, split: str) -> list[dict]:
    """Non-merge commits, newest first, that modify (not only add or delete) at least one Python file, as
    ``{"task_id": "commit/N", "sha": ...}`` rows."""
    shas = git(repo, "log", "--no-merges", "--format=%H", "--", "*.py").split()
    chosen = []
    for sha in shas:
        status = (git(repo, "diff", "--name-status", f"{sha}^", sha, "--", "*.py") if _has_parent(repo, sha)
                  else "")
        if any(line.startswith("M\t") for line in status.splitlines()):
            chosen.append(sha)
    # numbered from the oldest, so new commits do not move the tune/report split of older ones
    numbered = [{"task_id": f"commit/{len(chosen) - 1 - i}", "sha": sha} for i, sha in enumerate(chosen)]
    picked = _split(numbered, split)
    return picked[:limit] if limit else picked


def _has_parent(repo: Path, sha: str) -> bool:
    return subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{sha}^"], cwd=repo,
                          capture_output=True, check=False).returncode == 0


def commit_changes(repo: Path, commits: list[dict]) -> Iterator[tuple[dict, object]]:
    from acode.review.change.git_context import commit_context

    for row in commits:
        yield ({"task_id": row["task_id"], "sha": row["sha"][:12], "bug_type": "real commit",
                "direction": "real_commit", "expected": "APPROVED"}, commit_context(repo, row["sha"]))


def review_one(model, context, strategy: str, decision: str, timeout: float, regression: dict,
               behaviour: bool = False) -> dict:
    from acode.config.review import ReviewerSettings
    from acode.review.change.diff import changed_new_lines
    from acode.review.service import review_change

    settings = ReviewerSettings(strategy=strategy, decision_strategy=decision, timeout_seconds=timeout,
                                regression=regression)
    started = time.monotonic()
    result = review_change(context, model, settings, behaviour=behaviour)
    changed = {(f.path, n) for f in context.files for n in changed_new_lines(f.diff)}
    counting = [f for f in result.all_findings() if f.source == "model" and f.counts]
    return {**review_record(result, time.monotonic() - started),
            "localised": any((f.file, f.line) in changed for f in counting) if counting else None}


DESIGN_HELP = ("comma list of designs, each STRATEGY+REGRESSION[+diff] or verdict: STRATEGY is single_call, "
               "per_dimension or checks_only (no proposal call); REGRESSION is likelihood, question or off; "
               "+diff runs the behavioural diff (old and new function on the same inputs, in the sandbox); "
               "verdict is the model's overall APPROVED/REJECTED answer (the naive baseline)")


def parse_design(name: str) -> tuple[str, str, str, bool]:
    """(strategy, decision strategy, regression method, behavioural diff) of a design name."""
    if name == "verdict":
        return "per_dimension", "verdict", "off", False
    diff = name.endswith("+diff")
    strategy, _, regression = name.removesuffix("+diff").partition("+")
    if (strategy not in ("single_call", "per_dimension", "checks_only")
            or regression not in ("likelihood", "question", "off")):
        raise SystemExit(f"unknown design {name!r}: {DESIGN_HELP}")
    return strategy, "findings", regression, diff


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None,
                        help="tasks (each gives two changes) or commits to review")
    parser.add_argument("--skip", type=int, default=0,
                        help="leave out the first N tasks of the split (resume a run)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="bundled model name or .gguf path")
    parser.add_argument("--data", default="humanevalpack", choices=[*sorted(DATASETS), "commits"])
    parser.add_argument("--data-file", type=Path, help="read the --data set from this file instead (e.g. "
                        "humanevalpack-python.jsonl when ../shared/data is not next to this checkout)")
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="with --data commits: the repository (default: acode)")
    parser.add_argument("--split", choices=["tune", "report", "all"], default="report")
    parser.add_argument("--designs", default="checks_only+likelihood,checks_only+question", help=DESIGN_HELP)
    parser.add_argument("--context-window", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="llama.cpp threads (default: every core; figures need a quiet machine)")
    parser.add_argument("--timeout", type=float, default=600.0, help="per review")
    parser.add_argument("--max-edit-lines", type=int,
                        help="reviewer.regression.max_edit_lines for the run (a wider scope than the "
                        "default lets --rescore --tune choose the limit afterwards)")
    parser.add_argument("--records", type=Path,
                        help="also write every review as JSON lines here (for tuning)")
    parser.add_argument("--rescore", type=Path, nargs="+",
                        help="no model: re-decide the reviews in these records files")
    parser.add_argument("--confirm", type=float, help="with --rescore: thresholds.confirm")
    parser.add_argument("--poor", type=float, help="with --rescore: thresholds.poor")
    parser.add_argument("--margin", type=float, help="with --rescore: regression.margin")
    parser.add_argument("--statistic", choices=["sum", "mean"], help="with --rescore: regression.statistic")
    parser.add_argument("--edit-lines", type=int, help="with --rescore: regression.max_edit_lines")
    parser.add_argument("--evidence-from", type=Path, nargs="+",
                        help="with --rescore: take the deterministic evidence of each review from these "
                        "records (same changes) instead, keeping the model's findings")
    parser.add_argument("--without", default="",
                        help="with --rescore: leave out the findings whose rule starts with this (e.g. "
                        "behaviour/: the same reviews without the behavioural diff)")
    parser.add_argument("--guess", choices=["high", "medium"], default="",
                        help="with --rescore: high re-decides with a likelihood regression high on its own "
                        "(the decision before issue 31)")
    parser.add_argument("--question-margin", type=float,
                        help="with --rescore: behaviour.question_margin (re-judges the model's answers)")
    parser.add_argument("--parity", choices=["tune", "report"],
                        help="with --rescore: only the even (tune) or odd (report) task numbers")
    parser.add_argument("--tune", action="store_true",
                        help="with --rescore: choose regression.statistic, margin and max_edit_lines on the "
                        "tuning half (even task numbers) of the humanevalpack and commits records, then "
                        "report the odd halves and the novel set with that choice")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.rescore:
        return rescore_command(args)

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model
    from benchmarks.review.review_scoring import summarise

    settings = {"name": args.model, "context_window": args.context_window, "threads": args.threads}
    if args.model.endswith(".gguf"):
        settings["path"] = args.model
    model = build_model(ModelSettings(**settings))
    designs = {name: parse_design(name) for name in args.designs.split(",")}
    records: dict[str, list[dict]] = {name: [] for name in designs}
    scope = {} if args.max_edit_lines is None else {"max_edit_lines": args.max_edit_lines}
    out = args.records.open("w", encoding="utf-8") if args.records else None
    with tempfile.TemporaryDirectory(prefix="acode-review-accuracy-") as tmp:
        if args.data == "commits":
            changes = commit_changes(args.repo, python_commits(args.repo, args.limit, args.split))
        else:
            changes = pair_changes(load_tasks(args.data, args.split, args.limit, args.skip, args.data_file),
                                   Path(tmp))
        for head, context in changes:
            for design, (strategy, decision, regression, diff) in designs.items():
                record = {**head, "design": design,
                          **review_one(model, context, strategy, decision, args.timeout,
                                       {"method": regression, **scope}, behaviour=diff)}
                records[design].append(record)
                print(f"{head['task_id']:>11} {head['direction']:<12} {design:<26} {record['verdict']:<8} "
                      f"(expected {head['expected']}) {record['seconds']:6.1f}s", file=sys.stderr, flush=True)
                if out:
                    out.write(json.dumps(record) + "\n")
                    out.flush()
    if out:
        out.close()
    print(json.dumps({"benchmark": "review_accuracy", "model": args.model, "data": args.data,
                      "split": args.split, "changes": len(next(iter(records.values()), [])),
                      "designs": {name: summarise(rows) for name, rows in records.items()}}, indent=2))
    return 0


def rescore_command(args: argparse.Namespace) -> int:
    from acode.config.review import ReviewerSettings
    from benchmarks.review.review_scoring import load_records, rescore_rows, tune, with_evidence_from

    rows = [row for path in args.rescore for row in load_records(path)]
    if args.parity:
        rows = _split(rows, args.parity)
    if args.evidence_from:
        rows = with_evidence_from(rows, [row for path in args.evidence_from for row in load_records(path)])
    if args.tune:
        print(json.dumps(tune(rows), indent=2))
        return 0
    settings = ReviewerSettings()
    if args.confirm is not None:
        settings.thresholds.confirm = args.confirm
    if args.poor is not None:
        settings.thresholds.poor = args.poor
    if args.margin is not None:
        settings.regression.margin = args.margin
    if args.statistic is not None:
        settings.regression.statistic = args.statistic
    if args.edit_lines is not None:
        settings.regression.max_edit_lines = args.edit_lines
    print(json.dumps(rescore_rows(rows, settings, without=args.without, guess=args.guess,
                                  question_margin=args.question_margin), indent=2))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO / "src"))
    raise SystemExit(main())
