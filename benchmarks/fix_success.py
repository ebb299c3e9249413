"""Does the agent fix real bugs better than one model call? HumanEvalFix-style tasks
(benchmarks/fix_tasks.py), each solved in one run on the same model file by:

  (a) acode:    `acode -p "<the README's way of asking>" --approval-mode yolo --json`, default settings,
                in a fresh git repository holding the buggy file and its visible test file;
  (loop)        the same `acode -p` with test-driven fixing off (agent.fix.enabled=false): the tool loop
                alone, as acode was before it (opt-in arm: --arms acode,loop,oneshot);
  (b) one-shot: the same model asked once, greedy, no tools, with the file and the failing test output:
                "reply with the whole corrected file".

Success is decided by the hidden test (the task's full `test`), never shown to either. Tune on the even
task ids (--half even), report the odd ones (--half odd). Prints one JSON document; per-task records go
to --records (JSONL), so an interrupted run can --resume.

    python benchmarks/fix_success.py --half odd [--limit 40] [--model qwen2.5-coder-1.5b]
        [--arms acode,oneshot] [--set agent.fix.max_attempts=6] [--timeout 420]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fix_tasks import FixTask, hidden_check, load_tasks, make_workspace, visible_check

ONESHOT = ("{prompt}\n\n{module}\n```python\n{source}```\n\n{test_file}\n```python\n{test}```\n\n"
           "`python -m pytest -q` prints:\n```\n{output}\n```\n\nReply with the whole corrected {module} in "
           "one ```python block.")
FENCE = re.compile(r"```[\w]*\n(.*?)```", re.DOTALL)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def classify(task: FixTask, root: Path, edited: bool, stop: str) -> str:
    if hidden_check(task, root):
        return "solved"
    if stop in ("timeout", "max_turns", "limit"):
        return "limit"
    if not edited:
        return "no edit"
    try:
        compile((root / task.module).read_text(), task.module, "exec")
    except SyntaxError:
        return "broken edit"
    return "hidden tests fail" if visible_check(root)[0] else "tests still fail"


def run_acode(task: FixTask, root: Path, model: str, timeout: float, overrides: dict[str, str]) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env.update(overrides)
    acode = Path(sys.executable).parent / "acode"
    started, stderr = time.monotonic(), ""
    try:
        done = subprocess.run([str(acode), "-p", task.prompt, "--approval-mode", "yolo", "--json", "--model",
                               model],
                              cwd=root, capture_output=True, text=True, timeout=timeout, env=env, check=False)
        seconds = time.monotonic() - started
        report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
        stderr = done.stderr or ""
        stop = report.get("stop_reason", f"exit {done.returncode}")
    except subprocess.TimeoutExpired:
        seconds, report, stop = time.monotonic() - started, {}, "limit"
    steps = report.get("trajectory", [])
    edited = any(s.get("type") == "tool" and s.get("name") in ("write_file", "replace") and s.get("ok")
                 for s in steps)
    tokens = report.get("tokens", {})
    problem = {} if report else {"stderr_tail": stderr[-600:]}
    if report:  # the whole trajectory beside the workspace, to read the replies afterwards
        root.with_suffix(".json").write_text(json.dumps(report))
    calls = [s for s in steps if s.get("type") == "model"]
    return {**problem, "seconds": round(seconds, 1), "stop": stop, "edited": edited,
            "model_calls": len(calls),
            # where the time went: each call (seconds, prompt tokens read, completion tokens, finish), the
            # tool runs (tests), and the rest (process start, model load)
            "calls": [[round(s["seconds"], 1), s["usage"]["prompt_tokens_evaluated"],
                       s["usage"]["completion_tokens"], s["finish_reason"]] for s in calls],
            "tool_s": round(report.get("tool_seconds", 0.0), 1),
            "outside_run_s": round(seconds - report.get("seconds", seconds), 1),
            "prompt_tokens_evaluated": tokens.get("prompt_tokens_evaluated", 0),
            "prompt_tokens": tokens.get("prompt_tokens", 0),
            "completion_tokens": tokens.get("completion_tokens", 0),
            "outcome": classify(task, root, edited, stop)}


def run_oneshot(task: FixTask, root: Path, model) -> dict:
    from acode.llm.types import Message

    started = time.monotonic()
    _, output = visible_check(root)
    prompt = ONESHOT.format(prompt=task.prompt, module=task.module, source=task.source,
                            test_file=task.test_file, test=task.visible_test, output=output.strip()[-2500:])
    completion = model.complete([Message.user(prompt)], max_tokens=1536, temperature=0.0, seed=0)
    blocks = FENCE.findall(completion.text)
    edited = bool(blocks)
    if blocks:
        (root / task.module).write_text(max(blocks, key=len))
    seconds = time.monotonic() - started
    usage = completion.usage
    return {"seconds": round(seconds, 1), "stop": "answer", "edited": edited, "model_calls": 1,
            "prompt_tokens_evaluated": usage.prompt_tokens_evaluated, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "outcome": classify(task, root, edited, "answer")}


def summarize(records: list[dict], arm: str) -> dict:
    rows = [r[arm] for r in records if arm in r]
    if not rows:
        return {}
    seconds = [r["seconds"] for r in rows]
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["outcome"]] = reasons.get(r["outcome"], 0) + 1
    solved = reasons.get("solved", 0)
    return {"solved": solved, "total": len(rows), "rate": round(solved / len(rows), 3),
            "median_s": round(statistics.median(seconds), 1), "p90_s": percentile(seconds, 0.9),
            "model_calls_per_task": round(statistics.mean(r["model_calls"] for r in rows), 2),
            "prompt_tokens_evaluated_per_task": round(
                statistics.mean(r["prompt_tokens_evaluated"] for r in rows)),
            "completion_tokens_per_task": round(statistics.mean(r["completion_tokens"] for r in rows)),
            # an attempt is one model call (a reply that is no candidate included): the must-show
            "seconds_per_attempt": round(sum(seconds) / max(1, sum(r["model_calls"] for r in rows)), 1),
            "completion_tokens_per_attempt": round(
                sum(r["completion_tokens"] for r in rows) / max(1, sum(r["model_calls"] for r in rows))),
            "outcomes": dict(sorted(reasons.items()))}


def per_task(records: list[dict]) -> dict[str, list[str]]:
    """Which tasks acode solved that the one call did not (wins), and the reverse (losses)."""
    solved = {arm: {r["task_id"] for r in records if r.get(arm, {}).get("outcome") == "solved"}
              for arm in ("acode", "oneshot")}
    return {"wins": sorted(solved["acode"] - solved["oneshot"]),
            "losses": sorted(solved["oneshot"] - solved["acode"]),
            "both": sorted(solved["acode"] & solved["oneshot"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=["even", "odd", "all"], default="odd")
    parser.add_argument("--tasks", choices=["humanevalfix", "novel"], default="humanevalfix",
                        help="novel: benchmarks/data/novel_bugs.jsonl, never used to tune the fixer")
    parser.add_argument("--limit", type=int, default=0, help="first N tasks of the half (0: all)")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N tasks of the half")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--arms", default="acode,oneshot")
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds per acode run")
    parser.add_argument("--model-timeout", type=float, default=0.0,
                        help="model.timeout_seconds for arm (a) on a loaded machine (0: acode's default)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an acode setting for arm (a), e.g. agent.fix.max_attempts=6")
    parser.add_argument("--records", type=Path, default=None, help="JSONL of per-task results (appended)")
    parser.add_argument("--resume", action="store_true", help="skip tasks already in --records")
    args = parser.parse_args()

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    overrides = {"ACODE_" + key.strip().upper().replace(".", "__"): value for key, value in
                 (item.split("=", 1) for item in args.set)}
    if args.model_timeout:
        overrides["ACODE_MODEL__TIMEOUT_SECONDS"] = str(args.model_timeout)
    tasks = load_tasks(half=args.half, task_set=args.tasks)[args.skip:]
    tasks = tasks[: args.limit] if args.limit else tasks
    records: list[dict] = []
    if args.records and args.resume and args.records.exists():
        records = [json.loads(line) for line in args.records.read_text().splitlines() if line.strip()]
    done_ids = {r["task_id"] for r in records}
    model = None
    if "oneshot" in arms:
        from acode.config.model import ModelSettings
        from acode.llm.factory import build_model

        model = build_model(ModelSettings(backend="embedded", name=args.model))
    work = Path(tempfile.mkdtemp(prefix="acode-fix-bench-"))
    try:
        for task in tasks:
            if task.task_id in done_ids:
                continue
            record: dict = {"task_id": task.task_id}
            for arm in arms:
                root = make_workspace(task, work / f"{task.number}-{arm}")
                if arm == "acode":
                    record[arm] = run_acode(task, root, args.model, args.timeout, overrides)
                elif arm == "loop":  # the tool loop alone: acode before test-driven fixing
                    loop_only = {**overrides, "ACODE_AGENT__FIX__ENABLED": "false"}
                    record[arm] = run_acode(task, root, args.model, args.timeout, loop_only)
                else:
                    record[arm] = run_oneshot(task, root, model)
            records.append(record)
            print(json.dumps(record), file=sys.stderr, flush=True)
            if args.records:
                with args.records.open("a") as fh:
                    fh.write(json.dumps(record) + "\n")
    except KeyboardInterrupt:
        print("interrupted: reporting the tasks that finished", file=sys.stderr)
    report = {"model": args.model, "tasks_set": args.tasks, "half": args.half, "tasks": len(records),
              "settings": args.set,
              "timeout_s": args.timeout, "model_timeout_s": args.model_timeout or None,
              "arms": {arm: summarize(records, arm) for arm in arms}}
    if {"acode", "oneshot"} <= set(arms) and records:
        a, b = report["arms"]["acode"], report["arms"]["oneshot"]
        report["acode_minus_oneshot_points"] = round(100 * (a["rate"] - b["rate"]), 1)
        report["median_time_ratio"] = round(a["median_s"] / max(b["median_s"], 0.1), 2)
        report["per_task"] = per_task(records)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
