"""What does the sandbox cost per command (issue 50)? Start-up of a command the agent runs, sandboxed
(``sandbox: workspace-write``, as the shell tool wraps it) against the same command unsandboxed, in one run.

For each command (``true``, and ``python -c pass`` with this interpreter) the two ways alternate, ``--count``
times each, so load from other work on the machine falls on both alike; each run is ``bash -c COMMAND``
through ``subprocess.run`` as the shell tool starts it. Prints JSON: the median and p95 wall milliseconds of
each and the median CPU milliseconds (user + system of the command and all it started: far less disturbed by
other work on a shared machine than the wall clock), and the overheads (sandboxed minus plain). Target:
<= 15 ms median overhead. The load average is printed with the figures.

    python benchmarks/sandbox_cost.py --count 100
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from acode.command_sandbox import command_sandbox
from acode.config.sandbox import SandboxSettings

COMMANDS = {"true": "true", "python -c pass": f"{sys.executable} -c pass"}


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms, CPU ms of the command and everything it started)."""
    cpu, started = _children_cpu(), time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000, (_children_cpu() - cpu) * 1000


def _summary(runs: list[tuple[float, float]]) -> dict[str, float]:
    wall, cpu = [r[0] for r in runs], [r[1] for r in runs]
    return {"median": round(statistics.median(wall), 2), "p95": round(_p95(wall), 2),
            "cpu_median": round(statistics.median(cpu), 2)}


def measure(count: int) -> dict:
    policy = command_sandbox(SandboxSettings())
    if not policy.active:
        return {"error": f"no sandbox here: {policy.why_not}"}
    workspace = Path(tempfile.mkdtemp(prefix="acode-sandbox-cost-", dir="/var/tmp"))
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    try:
        results = {}
        for name, command in COMMANDS.items():
            plain_argv, env = ["bash", "-c", command], dict(os.environ)
            boxed_argv, boxed_env = policy.wrap(plain_argv, env, cwd=workspace, workspace=workspace)
            plain, boxed = [], []
            for _ in range(count):
                plain.append(_once(plain_argv, env, workspace))
                boxed.append(_once(boxed_argv, boxed_env, workspace))
            plain_ms, boxed_ms = _summary(plain), _summary(boxed)
            results[name] = {
                "plain_ms": plain_ms, "sandboxed_ms": boxed_ms,
                "median_overhead_ms": round(boxed_ms["median"] - plain_ms["median"], 2),
                "p95_overhead_ms": round(boxed_ms["p95"] - plain_ms["p95"], 2),
                "cpu_median_overhead_ms": round(boxed_ms["cpu_median"] - plain_ms["cpu_median"], 2),
            }
        return {"count": count, "load_average": os.getloadavg(), "cpus": os.cpu_count(),
                "target_median_overhead_ms": 15, "commands": results}
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="runs of each command each way")
    args = parser.parse_args()
    print(json.dumps(measure(args.count), indent=2))


if __name__ == "__main__":
    main()
