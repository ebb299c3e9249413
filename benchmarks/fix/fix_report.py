"""What the fix benchmarks share (benchmarks/fix/fix_success.py on one-file tasks,
benchmarks/fix/fix_project.py on real projects): one `acode -p` run read from its --json result, the
per-task records (JSONL, --resume), and the report: per arm solved / median seconds / seconds and
completion tokens per model call, and per task the wins and losses of acode against the one call."""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from benchmarks.harness.grouped import run_grouped


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The options both fix benchmarks take: the model, the arms, limits, acode settings, records."""
    parser.add_argument("--limit", type=int, default=0, help="first N tasks of the half (0: all)")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--arms", default="acode,oneshot")
    parser.add_argument("--timeout", type=float, default=420.0, help="seconds per acode run")
    parser.add_argument("--model-timeout", type=float, default=0.0,
                        help="model.timeout_seconds for acode on a loaded machine (0: acode's default)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="an acode setting, e.g. agent.fix.max_attempts=6")
    parser.add_argument("--threads", type=int, default=0,
                        help="llama.cpp threads for both arms (0: what acode picks when the benchmark "
                             "starts, the idle cores, then kept for every run of both arms)")
    parser.add_argument("--records", type=Path, default=None, help="JSONL of per-task results (appended)")
    parser.add_argument("--resume", action="store_true", help="skip tasks already in --records")


def arm_threads(threads: int) -> int:
    """The thread count both arms run with. The one call's model is loaded once, at the start; acode loads
    its own in each run and would pick its threads by the load then. Under load the two then differed
    (2 threads wait for each other on a busy 2-core machine: the one call ran 54% slower beside two
    CPU-bound processes, acode with 1 thread 5% slower), which made the wall-clock ratio measure the
    thread counts, not the fixer."""
    if threads:
        return threads
    from acode.llm.threads import default_threads

    return default_threads()


def oneshot_model(arms: list[str], name: str, threads: int):
    """The embedded model the one-call arm asks (None when that arm does not run)."""
    if "oneshot" not in arms:
        return None
    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    return build_model(ModelSettings(backend="embedded", name=name, threads=threads))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))], 1)


def settings_env(settings: list[str], model_timeout: float = 0.0, threads: int = 0) -> dict[str, str]:
    """``--set agent.fix.max_attempts=6`` as the environment variables acode reads."""
    env = {"ACODE_" + key.strip().upper().replace(".", "__"): value
           for key, value in (item.split("=", 1) for item in settings)}
    if threads:
        env.setdefault("ACODE_MODEL__THREADS", str(threads))
    if model_timeout:
        env["ACODE_MODEL__TIMEOUT_SECONDS"] = str(model_timeout)
    return env


def run_acode(prompt: str, root: Path, model: str, timeout: float, overrides: dict[str, str],
              path_first: Path | None = None, trace: Path | None = None) -> dict:
    """``acode -p PROMPT --approval-mode yolo --json`` in ``root``; ``path_first`` goes first on PATH (the
    project's activated environment, whose ``python`` the agent's shell then finds). The record has no
    outcome yet: the caller's check decides it. ``trace``: where to keep the whole --json result."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(str(p) for p in (path_first, Path(sys.executable).parent) if p) + \
        os.pathsep + env.get("PATH", "")
    env.update(overrides)
    acode = Path(sys.executable).parent / "acode"
    started, cpu_started, stderr = time.monotonic(), cpu_seconds(), ""
    try:
        command = [str(acode), "-p", prompt, "--approval-mode", "yolo", "--json", "--model", model]
        done = run_grouped(command, cwd=root, timeout=timeout, env=env)
        seconds = time.monotonic() - started
        report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
        stderr = done.stderr or ""
        if trace:
            trace.write_text(done.stdout + "\n# stderr\n" + stderr[-5000:])
        stop = report.get("stop_reason", f"exit {done.returncode}")
    except subprocess.TimeoutExpired:
        seconds, report, stop = time.monotonic() - started, {}, "limit"
    steps = report.get("trajectory", [])
    models = [s for s in steps if s.get("type") == "model"]
    edited = any(s.get("type") == "tool" and s.get("name") in ("write_file", "replace") and s.get("ok")
                 for s in steps)
    tokens = report.get("tokens", {})
    problem = {} if report else {"stderr_tail": stderr[-600:]}
    return {**problem, "seconds": round(seconds, 1), "cpu_s": round(cpu_seconds() - cpu_started, 1),
            "stop": stop, "edited": edited,
            "model_calls": len(models),
            "model_seconds": round(sum(s.get("seconds", 0.0) for s in models), 1),
            # where the time went: each call (seconds, prompt tokens read, completion tokens, finish), the
            # tool runs (tests), and the rest (process start, model load)
            "calls": [_call_figures(s) for s in models],
            "tool_s": round(report.get("tool_seconds", 0.0), 1),
            "outside_run_s": round(seconds - report.get("seconds", seconds), 1),
            "prompt_tokens_evaluated": tokens.get("prompt_tokens_evaluated", 0),
            "prompt_tokens": tokens.get("prompt_tokens", 0),
            "completion_tokens": tokens.get("completion_tokens", 0),
            "tests_run": [s.get("arguments", {}).get("command", "") for s in steps
                          if s.get("type") == "tool" and s.get("name") == "run_shell_command"],
            "files_written": sorted({s.get("arguments", {}).get("file_path", "") for s in steps
                                     if s.get("type") == "tool" and s.get("name") == "write_file"}),
            # which candidate ended it ("candidate 5: the edit `a < b` -> ... no model call", "attempt 1")
            "answer_head": (report.get("answer") or report.get("message") or "").split("\n", 1)[0][:400]}


def cpu_seconds() -> float:
    """CPU seconds of this process (every thread: the one call's model) and of its children that ended
    (an acode run and the test runs it waited for). Unlike wall seconds, two arms' CPU seconds hardly move
    with what else the machine runs: with two benchmark runs on 2 cores the wall-clock ratio of the same
    work moved 5x between repeats (benchmarks/results/history/2026-11-25-fix-untuned-bugs.md, eighth
    measurement)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def _call_figures(step: dict) -> list:
    usage = step.get("usage", {})
    return [round(step.get("seconds", 0.0), 1), usage.get("prompt_tokens_evaluated", 0),
            usage.get("completion_tokens", 0), step.get("finish_reason")]


def oneshot_record(seconds: float, edited: bool, usage, outcome: str,
                   cpu_s: float | None = None) -> dict:
    """The one call's record, in the fields ``summarize`` reads."""
    cpu = {} if cpu_s is None else {"cpu_s": round(cpu_s, 1)}
    return {"seconds": round(seconds, 1), **cpu, "stop": "answer", "edited": edited, "model_calls": 1,
            "model_seconds": round(seconds, 1),
            "prompt_tokens_evaluated": usage.prompt_tokens_evaluated if usage else 0,
            "prompt_tokens": usage.prompt_tokens if usage else 0,
            "completion_tokens": usage.completion_tokens if usage else 0, "outcome": outcome}


def summarize(records: list[dict], arm: str) -> dict:
    rows = [r[arm] for r in records if arm in r]
    if not rows:
        return {}
    seconds = [r["seconds"] for r in rows]
    reasons: dict[str, int] = {}
    for r in rows:
        reasons[r["outcome"]] = reasons.get(r["outcome"], 0) + 1
    solved = reasons.get("solved", 0)
    calls = sum(r["model_calls"] for r in rows)
    per_call = {}
    if calls and all("model_seconds" in r for r in rows):
        per_call["model_seconds_per_call"] = round(sum(r["model_seconds"] for r in rows) / calls, 1)
    if calls:
        per_call["completion_tokens_per_call"] = round(sum(r["completion_tokens"] for r in rows) / calls)
        # an attempt is one model call (a reply that is no candidate included): the whole run's seconds per
        # call, the must-show
        per_call["seconds_per_attempt"] = round(sum(seconds) / calls, 1)
    if all("cpu_s" in r for r in rows):
        per_call["median_cpu_s"] = round(statistics.median(r["cpu_s"] for r in rows), 1)
    return {"solved": solved, "total": len(rows), "rate": round(solved / len(rows), 3),
            "median_s": round(statistics.median(seconds), 1), "p90_s": percentile(seconds, 0.9),
            "model_calls_per_task": round(statistics.mean(r["model_calls"] for r in rows), 2), **per_call,
            "prompt_tokens_evaluated_per_task": round(
                statistics.mean(r["prompt_tokens_evaluated"] for r in rows)),
            "completion_tokens_per_task": round(statistics.mean(r["completion_tokens"] for r in rows)),
            "outcomes": dict(sorted(reasons.items()))}


def per_task(records: list[dict]) -> dict[str, list[str]]:
    """Which tasks acode solved that the one call did not (wins), and the reverse (losses)."""
    solved = {arm: {r["task_id"] for r in records if r.get(arm, {}).get("outcome") == "solved"}
              for arm in ("acode", "oneshot")}
    return {"wins": sorted(solved["acode"] - solved["oneshot"]),
            "losses": sorted(solved["oneshot"] - solved["acode"]),
            "both": sorted(solved["acode"] & solved["oneshot"])}


def compare(records: list[dict], arms: Iterable[str]) -> dict:
    """The report's arms, and acode against the one call when both ran."""
    arms = list(arms)
    out: dict = {"arms": {arm: summarize(records, arm) for arm in arms}}
    if {"acode", "oneshot"} <= set(arms) and records:
        a, b = out["arms"]["acode"], out["arms"]["oneshot"]
        out["acode_minus_oneshot_points"] = round(100 * (a["rate"] - b["rate"]), 1)
        out["median_time_ratio"] = round(a["median_s"] / max(b["median_s"], 0.1), 2)
        if "median_cpu_s" in a and "median_cpu_s" in b:
            out["median_cpu_ratio"] = round(a["median_cpu_s"] / max(b["median_cpu_s"], 0.1), 2)
        out["per_task"] = per_task(records)
    return out


def load_records(path: Path | None, resume: bool) -> list[dict]:
    if path and resume and path.exists():
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return []


def run_tasks(tasks: Iterable, arms: list[str], records: list[dict], path: Path | None, *,
              task_id: Callable[[object], str], run_arm: Callable[[object, str], dict],
              fields: Callable[[object], dict] = lambda task: {}) -> None:
    """Every task not already in ``records`` (a resumed run), each arm in turn; a task's record is added to
    ``records`` and saved to ``path`` as soon as it is done, so Ctrl-C ends the run with what finished."""
    done = {r["task_id"] for r in records}
    try:
        for task in tasks:
            if task_id(task) in done:
                continue
            record: dict = {"task_id": task_id(task), **fields(task)}
            for arm in arms:
                record[arm] = run_arm(task, arm)
            records.append(record)
            save_record(path, record)
    except KeyboardInterrupt:
        print("interrupted: reporting the tasks that finished", file=sys.stderr)


def save_record(path: Path | None, record: dict) -> None:
    print(json.dumps(record), file=sys.stderr, flush=True)
    if path:
        with path.open("a") as fh:
            fh.write(json.dumps(record) + "\n")
