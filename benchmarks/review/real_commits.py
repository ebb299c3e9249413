"""Does `acode review` approve real fixes of real projects and reject the same fixes reverted?

The set is built by ``real_commits_set.py`` (acode's own fix commits and fix releases of PyPI packages,
both directions, one git repository per change). Each change is reviewed as `acode review --base main`
reviews it: the branch context against `main`, the default reviewer settings (default strategy, 120 s
limit) and the model's default window, one loaded model for the whole run.

Prints JSON per project and overall: confusion matrix, balanced accuracy, false-reject rate of real
fixes, median seconds, time-outs and partial reviews, and the causes of every wrong decision (the
dimension and rule of each counting finding in a rejected fix, the reasons of an approved revert).

    python benchmarks/review/real_commits.py --model qwen2.5-coder-0.5b --records rc-0.5b.jsonl
    flock /tmp/acode-model.lock python benchmarks/review/real_commits.py --projects click,acode \\
        --per-project 4
    python benchmarks/review/real_commits.py --summarise rc-0.5b.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.review.review_scoring import review_record

REPO = Path(__file__).resolve().parents[2]


def reviewer_settings(timeout: float | None, sets: list[str]):
    """The default reviewer settings, with ``timeout_seconds`` and each ``key.sub=value`` of ``--set``
    (values read as YAML scalars, as ``ACODE_*`` environment variables are)."""
    import yaml

    from acode.config.loader import nest_dotted
    from acode.config.review import ReviewerSettings

    flat = {} if timeout is None else {"timeout_seconds": timeout}
    for item in sets:
        key, _, value = item.partition("=")
        flat[key.strip()] = yaml.safe_load(value) if value else ""
    return ReviewerSettings.model_validate(nest_dotted(flat))


def review(model, repo: Path, settings, run_tests, behaviour: bool = False) -> dict:
    from acode.review.change.git_context import branch_context
    from acode.review.service import review_change

    context = branch_context(repo, "main", max_diff_chars=settings.max_diff_chars,
                             context_lines=settings.context_lines)
    started = time.monotonic()
    result = review_change(context, model, settings, run_tests=run_tests, behaviour=behaviour)
    return {**review_record(result, time.monotonic() - started),
            "changed_lines": sum(f.additions + f.deletions for f in context.files),
            "files": len(context.files)}


def causes(record: dict) -> list[str]:
    """What drove a wrong decision: for a rejected fix, the dimension/rule of each counting finding that
    pulls a dimension to poor or counts at all; for an approved revert, 'nothing counted' or the levels."""
    if record["status"] == "timeout":
        return ["timeout: nothing assessed in time (exit 52)"]
    if record["expected"] == "APPROVED":
        found = sorted({f"{f['dimension']}:{f['rule'] or f['source']}" for f in record["counting"]
                        if f["severity"] in ("critical", "high", "medium")})
        return found or [f"reason:{r[:60]}" for r in record["reasons"]]
    regression = [f for f in record["counting"] if f["rule"] == "review/regression"]
    return ["nothing counted" if not record["counting"] else
            "only low findings" if not regression else "counted but not poor"]


def without(row: dict, rule: str, settings) -> dict:
    """The review re-decided from its record without the findings whose rule starts with ``rule`` (exact for
    evidence no other part of the review reads, such as ``history/``). A time-out stays a time-out."""
    from benchmarks.review.review_scoring import rescore

    kept = {key: [f for f in row[key] if not (f.get("rule") or "").startswith(rule)]
            for key in ("findings", "counting")}
    if row["status"] == "timeout":
        return {**row, **kept}
    return {**row, **kept, "verdict": rescore({**row, **kept}, settings)}


def summarise(rows: list[dict]) -> dict:
    fixes = [r for r in rows if r["expected"] == "APPROVED"]
    reverts = [r for r in rows if r["expected"] == "REJECTED"]
    approved = sum(r["verdict"] == "APPROVED" and r["status"] != "timeout" for r in fixes)
    rejected = sum(r["verdict"] == "REJECTED" or r["status"] == "timeout" for r in reverts)
    tnr = approved / len(fixes) if fixes else None
    tpr = rejected / len(reverts) if reverts else None
    wrong_fix = Counter(c for r in fixes if r["verdict"] != "APPROVED" for c in causes(r))
    wrong_revert = Counter(c for r in reverts if r["verdict"] != "REJECTED" for c in causes(r))
    return {
        "changes": len(rows),
        "fixes_approved": f"{approved}/{len(fixes)}",
        "reverts_rejected": f"{rejected}/{len(reverts)}",
        "balanced_accuracy": round((tnr + tpr) / 2, 3) if fixes and reverts else None,
        "false_reject_rate": round(1 - tnr, 3) if fixes else None,
        "median_seconds": statistics.median(r["seconds"] for r in rows) if rows else None,
        "max_seconds": max((r["seconds"] for r in rows), default=None),
        "timeouts": sum(r["status"] == "timeout" for r in rows),
        "partial": sum(r["status"] == "partial" for r in rows),
        "tests_regressed": sum(bool((r.get("tests") or {}).get("regressed")) for r in rows),
        "tests_fixed": sum(bool((r.get("tests") or {}).get("fixed")) for r in rows),
        "false_reject_causes": dict(wrong_fix.most_common()),
        "missed_revert_causes": dict(wrong_revert.most_common()),
    }


def report(rows: list[dict]) -> dict:
    projects = dict.fromkeys(r["project"] for r in rows)
    return {"overall": summarise(rows), "by_project": {p: summarise([r for r in rows if r["project"] == p])
                                                       for p in projects}}


def interleaved(fixes: list) -> list:
    """Round-robin over the projects, so a run cut short (or --skip resumed) covers every project alike."""
    queues: dict[str, list] = {}
    for fix in fixes:
        queues.setdefault(fix.project, []).append(fix)
    out = []
    while any(queues.values()):
        for queue in queues.values():
            if queue:
                out.append(queue.pop(0))
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="bundled model name or .gguf path")
    parser.add_argument("--projects", help="comma list (default: every project of the set)")
    parser.add_argument("--held-back", action="store_true",
                        help="the held-back projects (never used to tune the review) instead of the set")
    parser.add_argument("--history", action="store_true",
                        help="`main` with the project's history (previous release, the fix as its own "
                             "commit; acode: a clone of its repository), as a maintainer's clone has it")
    parser.add_argument("--names", help="comma list of changes ('acode 4795ab3,click 8.1.6->8.1.7')")
    parser.add_argument("--per-project", type=int,
                        help="at most this many fixes per project (the first ones)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N fixes (resume a run)")
    parser.add_argument("--directions", default="fix,revert")
    parser.add_argument("--timeout", type=float,
                        help="reviewer.timeout_seconds (default: the reviewer's default)")
    parser.add_argument("--threads", type=int, help="llama.cpp threads (default: the model's default)")
    parser.add_argument("--run-tests", action=argparse.BooleanOptionalAction, default=None,
                        help="as `acode review --run-tests / --no-run-tests`; default: reviewer.run_tests "
                             "(auto: the related tests on both sides of each change, in the sandbox). Tests "
                             "run in a test environment built once in the cache (real_commits_set.test_env)")
    parser.add_argument("--behaviour", action=argparse.BooleanOptionalAction, default=False,
                        help="run the behavioural diff, as `acode review` does (old and new version of each "
                             "changed function on the same inputs, in the sandbox); default off, as before")
    parser.add_argument("--tests-bin", type=Path,
                        help="with the tests run: the folder whose `python` runs them (e.g. acode's "
                             "own venv's bin for --projects acode) instead of the set's test environment, "
                             "which is built once with pip")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a reviewer setting, e.g. regression.tests=false or strategy=checks_only "
                             "(JSON values)")
    parser.add_argument("--records", type=Path, help="append every review as a JSON line here")
    parser.add_argument("--summarise", type=Path, nargs="+", help="no model: the figures of records files")
    parser.add_argument("--without", metavar="RULE",
                        help="with --summarise: re-decide every review without the findings whose rule "
                             "starts with RULE (e.g. 'history/': the review's figures without the history)")
    parser.add_argument("--list", action="store_true", help="no model: list the set")
    return parser.parse_args(argv)


def read_records(paths: list[Path]) -> list[dict]:
    return [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]


def load_model(name: str, threads: int | None = None):
    """The one model of a run: a bundled model by name, or a .gguf file."""
    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    settings = {"name": name, **({"threads": threads} if threads else {})}
    if name.endswith(".gguf"):
        settings["path"] = name
    return build_model(ModelSettings(**settings))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.summarise:
        rows = read_records(args.summarise)
        if args.without:
            rows = [without(row, args.without, reviewer_settings(None, row.get("settings") or []))
                    for row in rows]
        print(json.dumps(report(rows), indent=2))
        return 0
    from benchmarks.tasks import real_commits_set as rcs

    fixes = rcs.all_fixes(projects=set(args.projects.split(",")) if args.projects else None,
                          which="held-back" if args.held_back else "tuning")
    if args.names:
        wanted = {n.strip() for n in args.names.split(",")}
        fixes = [f for f in fixes if f.name in wanted]
    if args.per_project:
        seen: Counter = Counter()
        fixes = [f for f in fixes if (seen.update([f.project]) or seen[f.project] <= args.per_project)]
    fixes = interleaved(fixes)[args.skip:]
    if args.list:
        print(json.dumps([{"name": f.name, "files": len(f.changes), "lines": f.changed_lines} for f in fixes],
                         indent=2))
        return 0
    path = os.environ.get("PATH", "")
    model = load_model(args.model, args.threads)
    reviewer = reviewer_settings(args.timeout, args.set)
    run_tests = reviewer.run_tests if args.run_tests is None else args.run_tests
    rows = []
    out = args.records.open("a", encoding="utf-8") if args.records else None
    with tempfile.TemporaryDirectory(prefix="acode-real-commits-") as tmp:
        for fix in fixes:
            for direction in args.directions.split(","):
                repo = rcs.build(fix, direction, Path(tmp) / f"{rcs.slug(fix)}-{direction}",
                                 history=args.history)
                if run_tests:  # `python` of the test command is the project's test environment's
                    tests_bin = args.tests_bin or rcs.test_env(rcs.env_name(fix))
                    os.environ["PATH"] = f"{tests_bin}{os.pathsep}{path}"
                row = {"project": fix.project, "name": fix.name, "direction": direction, "model": args.model,
                       "expected": "APPROVED" if direction == "fix" else "REJECTED",
                       "settings": args.set, "run_tests": run_tests, "history": args.history,
                       "behaviour_diff": args.behaviour,
                       **review(model, repo, reviewer, run_tests, args.behaviour)}
                rows.append(row)
                print(f"{fix.name:<28} {direction:<6} {row['verdict']:<8} {row['status']:<8} "
                      f"{row['seconds']:6.1f}s "
                      f"{row['changed_lines']:4d} lines "
                      f"{'; '.join(causes(row)) if row['verdict'] != row['expected'] else ''}",
                      file=sys.stderr, flush=True)
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
    if out:
        out.close()
    print(json.dumps({"benchmark": "real_commits", "model": args.model, **report(rows)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.path.append(str(REPO / "src"))  # after PYTHONPATH, so a run can use a snapshot of the sources
    raise SystemExit(main())
