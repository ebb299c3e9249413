"""Many reviews, one model server: how a team's CI scales `acode review` on its own hardware.

Starts llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with a bundled model, then for each level
N runs N `acode review --suggest` processes at once (as N CI runners would), each on a different change (a
HumanEvalPack task with its known bug put in, no tests). `--suggest` makes every review ask the model (its
own findings, each checked by a question): the checks alone decide these changes without a model call, and
a benchmark of those measures no server at all. The same levels again with the embedded model loaded in
every process, for comparison. Prints JSON per mode and level: reviews/minute, p50/p95 latency, the model
calls the reviews made (a review that made none is an error: it measured nothing), errors (a review that
exited other than 0/50, printed no valid JSON, or did not complete counts as one: none are allowed), and
the machine's load before each level. Everything stays on loopback; the number of requests is bounded by
the levels. Run it alone: `flock /tmp/acode-model.lock python benchmarks/speed/review_fanout.py ...`.

    python benchmarks/speed/review_fanout.py                                  # 1.5B, levels 1,2,4,8
    python benchmarks/speed/review_fanout.py --model qwen2.5-coder-0.5b --levels 1,2 --modes server
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "humanevalpack-python.jsonl"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def build_changes(root: Path, count: int) -> list[Path]:
    """``count`` repositories: main holds a task's correct function, the checked-out branch its bug."""
    tasks = [json.loads(line) for line in DATA.read_text().splitlines()[:count]]
    repos = []
    for task in tasks:
        repo = root / task["task_id"].replace("/", "-")
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "bench@example.com")
        git(repo, "config", "user.name", "bench")
        (repo / "solution.py").write_text(task["prompt"] + task["canonical_solution"])
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "add " + task["entry_point"])
        git(repo, "switch", "-qc", "change")
        (repo / "solution.py").write_text(task["prompt"] + task["buggy_solution"])
        git(repo, "commit", "-qam", "simplify " + task["entry_point"])
        repos.append(repo)
    return repos


def review_env(mode: str, model: str, base_url: str, config_home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACODE_") or k == "ACODE_CACHE_DIR"}
    # a limit no level reaches: the time plan must not leave the model's part out under load
    env.update(ACODE_CONFIG_HOME=str(config_home), ACODE_MODEL__NAME=model,
               ACODE_REVIEWER__TIMEOUT_SECONDS="3600")
    if mode == "server":
        env.update(ACODE_MODEL__BACKEND="openai", ACODE_MODEL__BASE_URL=base_url)
    else:
        env.update(ACODE_MODEL__BACKEND="embedded")
    return env


def run_level(repos: list[Path], env: dict[str, str], timeout: float) -> dict:
    load = os.getloadavg()[0]
    started = time.monotonic()
    processes = [
        (subprocess.Popen([sys.executable, "-m", "acode", "review", "run", "--json", "--no-run-tests",
                           "--suggest"],
                          cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          stdin=subprocess.DEVNULL), time.monotonic())
        for repo in repos
    ]
    # each process waited for on its own thread: a review's latency ends when it does, not when the
    # reviews started before it have been collected
    finished: dict[int, tuple[float, str, str, bool]] = {}

    def collect(index: int, process: subprocess.Popen) -> None:
        try:
            out, err = process.communicate(timeout=max(1.0, timeout - (time.monotonic() - started)))
            finished[index] = (time.monotonic(), out, err, False)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            finished[index] = (time.monotonic(), "", "", True)

    threads = [threading.Thread(target=collect, args=(i, p)) for i, (p, _) in enumerate(processes)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies, errors, decisions, calls = [], [], [], []
    for index, (process, began) in enumerate(processes):
        ended, out, err, timed_out = finished[index]
        if timed_out:
            errors.append("timed out")
            continue
        latencies.append(ended - began)
        try:
            data = json.loads(out)
        except json.JSONDecodeError:
            errors.append(f"exit {process.returncode}, no JSON: {err.strip().splitlines()[-1:]}")
            continue
        if process.returncode not in (0, 50) or data.get("status") != "complete":
            errors.append(f"exit {process.returncode}, status {data.get('status')}")
        calls.append(data["tokens"]["calls"])
        if not calls[-1]:
            errors.append("no model call: this review measured nothing of the model")
        decisions.append(data["decision"]["verdict"])
    wall = time.monotonic() - started
    ordered = sorted(latencies)
    return {
        "reviews": len(repos), "load_before": round(load, 2), "wall_s": round(wall, 1),
        "reviews_per_minute": round(len(latencies) / wall * 60, 2) if latencies else 0.0,
        "p50_s": round(statistics.median(ordered), 1) if ordered else None,
        "p95_s": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1) if ordered else None,
        "model_calls": sum(calls), "errors": errors, "rejected": decisions.count("REJECTED"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--levels", default="1,2,4,8")
    parser.add_argument("--modes", default="server,embedded", help="server, embedded or both")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per level")
    args = parser.parse_args()
    from acode.config.model import ModelSettings
    from acode.llm.bundled import resolve_model_path
    from benchmarks.harness.llama_server import LlamaServer

    levels = [int(n) for n in args.levels.split(",")]
    results: dict = {"model": args.model, "cores": os.cpu_count(), "levels": {}}
    with tempfile.TemporaryDirectory(prefix="acode-fanout-") as tmp:
        root = Path(tmp)
        repos = build_changes(root / "changes", max(levels))
        server = None
        if "server" in args.modes:
            gguf = resolve_model_path(ModelSettings(name=args.model))
            server = LlamaServer(gguf, n_ctx=8192, log_file=root / "server.log").start()
        try:
            for mode in args.modes.split(","):
                env = review_env(mode, args.model, server.base_url if server else "", root / f"home-{mode}")
                for n in levels:
                    outcome = run_level(repos[:n], env, args.timeout)
                    results["levels"].setdefault(mode, {})[str(n)] = outcome
                    print(json.dumps({"mode": mode, "n": n, **outcome}), file=sys.stderr, flush=True)
        finally:
            if server:
                server.stop()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
