"""How many bugs no test and no history can show does `acode review` catch, and at what cost in sound changes?

Reviews every change of ``untested_bugs_set`` (real fixes with their own tests removed and the history
squashed, both directions; the logic pairs with their sound twins) as `acode review --base main` reviews it:
the default reviewer settings, the behavioural diff on, the project's tests off, one loaded model for the
whole run. The control where tests decide is ``real_commits.py --run-tests --behaviour`` (the fix's own
tests kept).

Prints JSON per half (tune, held-out), per source (real commits, logic pairs) and per kind of defect:
balanced accuracy, fixes approved, bugs rejected, median seconds; for every caught bug the evidence that
decided it (``deciders``); every sound change rejected with what rejected it; the load average at the start
and end of the run.

    flock /tmp/acode-model.lock python benchmarks/review/untested_bugs.py --records before.jsonl
    python benchmarks/review/untested_bugs.py --halves held-out --sources real --limit 4
    python benchmarks/review/untested_bugs.py --summarise before.jsonl
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPO = Path(__file__).resolve().parents[2]


def load() -> str:
    """The 1, 5 and 15-minute load averages (the machine is shared: every figure goes with its load)."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def deciders(row: dict) -> list[str]:
    """What made a review reject: each counting critical/high finding as ``rule`` (a behavioural difference
    with what made it count: the docstring, the message's words, the intent question, the model's question
    about the outcome), else the medium ones; a time-out as ``timeout``."""
    if row["status"] == "timeout":
        return ["timeout"]
    strong = [f for f in row["counting"] if f["severity"] in ("critical", "high")]
    return sorted({_tag(f) for f in (strong or [f for f in row["counting"] if f["severity"] == "medium"])})


def _tag(finding: dict) -> str:
    rule = finding.get("rule") or finding.get("source") or "?"
    if rule != "behaviour/changed":
        return rule if finding["severity"] in ("critical", "high") else f"{rule} (medium)"
    message = finding.get("message", "")
    for words, why in (("the request asks for no change of behaviour", "intent question"),
                       ("docstring's example", "docstring example"),
                       ("the change says it is a", "message words"),
                       ("finds the old outcome right, every way", "outcome votes"),
                       ("finds the old outcome right", "outcome question")):
        if words in message:
            return f"behaviour/changed: {why}"
    return "behaviour/changed" + ("" if finding["severity"] in ("critical", "high") else " (medium)")


def figures(rows: list[dict]) -> dict:
    """real_commits' figures in this set's words: sound changes approved, bugs rejected (a time-out counts
    against a sound change and for a bug, as there)."""
    from benchmarks.review.real_commits import summarise

    done = summarise(rows)
    return {"changes": len(rows), "sound_approved": done["fixes_approved"],
            "bugs_rejected": done["reverts_rejected"], "balanced_accuracy": done["balanced_accuracy"],
            "median_seconds": None if not rows else round(done["median_seconds"], 1),
            "max_seconds": done["max_seconds"], "timeouts": done["timeouts"], "partial": done["partial"]}


def report(rows: list[dict]) -> dict:
    out: dict = {"overall": figures(rows)}
    for half in dict.fromkeys(r["half"] for r in rows):
        in_half = [r for r in rows if r["half"] == half]
        out[half] = {"all": figures(in_half)}
        for source in dict.fromkeys(r["source"] for r in in_half):
            of_source = [r for r in in_half if r["source"] == source]
            out[half][source] = {**figures(of_source), "by_kind": {
                kind: figures([r for r in of_source if r["kind"] == kind])
                for kind in sorted({r["kind"] for r in of_source})}}
    from benchmarks.review.untested_bugs_judge import judged
    from benchmarks.review.untested_bugs_reach import reach

    out["reach"] = reach(rows)
    out["judge"] = judged(rows)
    out["caught"] = {r["name"]: deciders(r) for r in rows
                     if r["expected"] == "REJECTED" and r["verdict"] == "REJECTED"}
    out["sound_rejected"] = {r["name"]: deciders(r) for r in rows
                             if r["expected"] == "APPROVED" and r["verdict"] != "APPROVED"}
    return out


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="bundled model name or .gguf path")
    parser.add_argument("--halves", default="tune,held-out")
    parser.add_argument("--sources", default="real,logic")
    parser.add_argument("--projects", help="comma list of real projects (default: all)")
    parser.add_argument("--limit", type=int, help="at most this many changes (both directions count)")
    parser.add_argument("--no-model", action="store_true",
                        help="a scripted model that says yes to every question instead: each question asked "
                             "both ways cancels (intent, outcome), the likelihood reads nothing, so only the "
                             "executed and deterministic evidence decides (the floor without a model)")
    parser.add_argument("--intent-only", action="store_true",
                        help="no review: only the intent question on each change's message (the model's "
                             "verdict per change, as a review asks it), as records")
    parser.add_argument("--with-intent", type=Path,
                        help="with --summarise: re-decide each review under the intent verdicts of these "
                             "--intent-only records (a difference that waited for the model counts high "
                             "where the verdict is no_change): the intent question's part, without a full "
                             "model run")
    parser.add_argument("--no-runtime-env", action="store_true",
                        help="review the real commits without the project's runtime dependencies installed "
                             "(as before November 27 evening: flask's werkzeug missing where the diff runs)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a reviewer setting, as real_commits.py --set")
    parser.add_argument("--records", type=Path, help="append every review as a JSON line here")
    parser.add_argument("--summarise", type=Path, nargs="+", help="no model: the figures of records files")
    parser.add_argument("--list", action="store_true", help="no model: describe the set")
    parser.add_argument("--per-function", action="store_true",
                        help="with --summarise: also list every changed function of each bug on stderr "
                             "(status, inputs tried, why it was not run)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    from benchmarks.review.real_commits import load_model, read_records, review, reviewer_settings
    from benchmarks.tasks import untested_bugs_set as ubs

    if args.summarise:
        rows = read_records(args.summarise)
        if args.with_intent:
            verdicts = {r["name"]: r["intent"] for r in read_records([args.with_intent])}
            rows = [under_intent(row, verdicts.get(row["name"]), reviewer_settings(None, row["settings"]))
                    for row in rows]
        if args.per_function:
            from benchmarks.review.untested_bugs_reach import per_function

            print("\n".join(per_function(rows)), file=sys.stderr)
        print(json.dumps(report(rows), indent=2))
        return 0

    items = ubs.changes(tuple(args.halves.split(",")), tuple(args.sources.split(",")),
                        set(args.projects.split(",")) if args.projects else None)
    # the held-out half first, so a run cut short (the machine is shared) still measures it whole
    items = sorted(items, key=lambda item: item.half != "held-out")[:args.limit]
    if args.list:
        print(json.dumps(ubs.describe(items), indent=2))
        return 0
    model = yes_to_everything() if args.no_model else load_model(args.model)
    reviewer = reviewer_settings(None, args.set)
    import acode

    head = {"commit": _commit(), "acode_src": str(Path(acode.__file__).parent),
            "machine": f"{platform.node()} {os.cpu_count()} cores",
            "load_start": load(), "model": "none (yes to everything)" if args.no_model else args.model,
            "settings": args.set}
    rows: list[dict] = []
    asked: dict[str, dict] = {}
    out = args.records.open("a", encoding="utf-8") if args.records else None
    with tempfile.TemporaryDirectory(prefix="acode-untested-") as tmp:
        for index, item in enumerate(items):
            repo = ubs.build(item, Path(tmp) / str(index))
            if args.intent_only:  # a message seen before (a logic pair's two directions) is not asked again
                row = {**head, "name": item.name, "load": load(), **intent_of(model, repo, reviewer, asked)}
                print(f"{item.name:<34} {row['intent']['verdict']:<10} {row['seconds']:5.1f}s "
                      f"{row['intent']['log_odds']}", file=sys.stderr, flush=True)
                if out:
                    out.write(json.dumps(row) + "\n")
                    out.flush()
                continue
            with project_environment(None if args.no_runtime_env or item.fix is None else item.fix.before):
                done = review(model, repo, reviewer, False, behaviour=True)
            row = {**head, "name": item.name, "source": item.source, "project": item.project,
                   "half": item.half, "direction": item.direction, "expected": item.expected,
                   "kind": item.kind, "load": load(), **done}
            rows.append(row)
            why = ", ".join(deciders(row)) if row["verdict"] == "REJECTED" else ""
            print(f"{item.name:<34} {item.half:<8} {row['verdict']:<8} (expected {item.expected}) "
                  f"{row['seconds']:6.1f}s {why}", file=sys.stderr, flush=True)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
    if out:
        out.close()
    print(json.dumps({"benchmark": "untested_bugs", **head, "load_end": load(), **report(rows)}, indent=2))
    return 0


@contextlib.contextmanager
def project_environment(tree: Path | None):
    """While a review runs, ``VIRTUAL_ENV`` names an environment with the runtime dependencies ``tree``
    declares (``real_commits_set.runtime_env``, cached), as a user's activated environment would: the
    behavioural diff imports the code's dependencies from it (flask's werkzeug is not in acode's)."""
    import real_commits_set as rcs

    env = rcs.runtime_env(tree) if tree is not None else None
    kept = os.environ.pop("VIRTUAL_ENV", None)
    if env is not None:
        os.environ["VIRTUAL_ENV"] = str(env)
    try:
        yield
    finally:
        os.environ.pop("VIRTUAL_ENV", None)
        if kept is not None:
            os.environ["VIRTUAL_ENV"] = kept


def intent_of(model, repo: Path, settings, asked: dict[str, dict]) -> dict:
    """The intent question on the change's message, as a review asks it (``judging.intent_question``)."""
    import time

    from acode.review.change.git_context import branch_context
    from acode.review.judging.intent_question import ask_intent

    intent = branch_context(repo, "main").effective_intent()
    if intent in asked:
        return {**asked[intent], "seconds": 0.0}
    started = time.monotonic()
    answer = ask_intent(model, intent, votes=settings.behaviour.intent_votes,
                        margin=settings.behaviour.intent_margin, timeout=lambda: 300.0)
    asked[intent] = {"intent": answer.record(), "message": intent[:200],
                     "seconds": round(time.monotonic() - started, 2)}
    return asked[intent]


def under_intent(row: dict, intent: dict | None, settings) -> dict:
    """``row`` re-decided as if the intent question had answered ``intent``: under ``no_change`` every
    behavioural difference that waited for the model's outcome question (it carries that question's
    log-odds) counts high, as ``weigh_difference`` makes it; any other verdict changes nothing."""
    from benchmarks.review.review_scoring import rescore

    if not intent or intent["verdict"] != "no_change":
        return row
    findings = [{**f, "severity": "high", "status": "confirmed",
                 "message": f["message"] + "; the request asks for no change of behaviour (re-decided)"}
                if f["rule"] == "behaviour/changed" and "old_logit" in (f.get("metrics") or {}) else f
                for f in row["findings"]]
    changed = {**row, "findings": findings}
    verdict = rescore(changed, settings)
    counting = [f for f in findings if f["rule"] == "behaviour/changed" and f["severity"] == "high"]
    return {**changed, "verdict": verdict, "counting": row["counting"] + counting}


def yes_to_everything():
    from acode.llm.scripted import ScriptedModel

    class YesModel(ScriptedModel):
        def complete(self, messages, **kwargs):
            self.push("yes")
            return super().complete(messages, **kwargs)

    return YesModel(name="yes-to-everything")


def _commit() -> str:
    """This checkout's commit (with PYTHONPATH on another tree, ``acode_src`` says which sources ran)."""
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=False).stdout.strip()


if __name__ == "__main__":
    sys.path.append(str(REPO / "src"))
    raise SystemExit(main())
