"""What does the sandbox cost per command (issue 50)? Start-up of a command the agent runs, sandboxed
(``sandbox: workspace-write``, as the shell tool wraps it) against the same command unsandboxed, in one run.

For each command (``true``, and ``python -c pass`` with this interpreter) three ways alternate, ``--count``
times each, so load from other work on the machine falls on all alike: plain, bare bubblewrap (its own
start-up: new namespaces and one read-only bind) and acode's sandbox; each run is ``bash -c COMMAND`` through
``subprocess.run`` as the shell tool starts it. Prints JSON: the median and p95 wall milliseconds of each and
the overheads over plain. Target: <= 15 ms median overhead. The load average is printed with the figures
(CPU time is not: what runs in bubblewrap's PID namespace is not counted to the caller).

    python benchmarks/speed/sandbox_cost.py --count 100
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acode.command_sandbox import command_sandbox
from acode.config.sandbox import SandboxSettings

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

COMMANDS = {"true": "true", "python -c pass": f"{sys.executable} -c pass"}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _once(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def _summary(wall: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(wall), 2), "p95": round(_p95(wall), 2)}


def measure(count: int) -> dict:
    policy = command_sandbox(SandboxSettings())
    if policy.sandbox is None:
        return {"error": f"no sandbox here: {policy.why_not}"}
    workspace = Path(tempfile.mkdtemp(prefix="acode-sandbox-cost-", dir="/var/tmp"))
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    try:
        results = {}
        for name, command in COMMANDS.items():
            plain_argv, env = ["bash", "-c", command], dict(os.environ)
            ways = {"plain": (plain_argv, env),
                    # bubblewrap's own start-up: one read-only bind, new namespaces, nothing else
                    "bare_bwrap": ([policy.sandbox.executable, "--ro-bind", "/", "/", "--unshare-all",
                                    "--die-with-parent", "--", *plain_argv], env),
                    "sandboxed": policy.wrap(plain_argv, env, cwd=workspace, workspace=workspace)}
            runs: dict[str, list[float]] = {way: [] for way in ways}
            for _ in range(count):
                for way, (argv, way_env) in ways.items():
                    runs[way].append(_once(argv, way_env, workspace))
            shown = {f"{way}_ms": _summary(times) for way, times in runs.items()}
            plain, boxed = shown["plain_ms"], shown["sandboxed_ms"]
            results[name] = {**shown,
                             "median_overhead_ms": round(boxed["median"] - plain["median"], 2),
                             "p95_overhead_ms": round(boxed["p95"] - plain["p95"], 2),
                             "bare_bwrap_median_overhead_ms": round(shown["bare_bwrap_ms"]["median"]
                                                                    - plain["median"], 2)}
        load = [round(x, 2) for x in os.getloadavg()]
        return {"count": count, "load_average": load, "cpus": os.cpu_count(), "target_median_overhead_ms": 15,
                "commands": results}
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="runs of each command each way")
    parser.add_argument("--record", action="store_true",
                        help="also keep the result as a dated record in benchmarks/results/")
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    result = measure(args.count)
    print(json.dumps(result, indent=2))
    if args.record:
        from benchmarks.harness.results_record import write_record

        print(f"recorded in {write_record('sandbox-cost', result, load_before=load_before)}", file=sys.stderr)


if __name__ == "__main__":
    main()
