"""How long does acode take to start, against a bare Python start?

Each command runs in a fresh process (``python -m acode ...``) in an empty temporary git repository;
the best of ``--repeat`` runs is kept (the machine is shared, the best run is the one least disturbed),
both as wall seconds and as CPU seconds (user + system of the process: what the command itself costs,
far less disturbed by other work on the machine than the wall clock). ``ratio`` and ``cpu_ratio`` are a
command's best over the bare ``python -c pass`` best. Target (issue 28): ``acode --help`` <= 15x a bare
Python start. Prints JSON.

Measured as installed: with compiled bytecode (a warm-up run writes it under a temporary
PYTHONPYCACHEPREFIX). A PYTHONDONTWRITEBYTECODE environment (as on the shared build machines) makes
every start compile acode's own modules from source, about 40 ms more; ``--no-bytecode`` measures that.

    python benchmarks/speed/startup.py --repeat 7
    PYTHONPATH=/work/main/src python benchmarks/speed/startup.py     # another checkout's code
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

COMMANDS = {
    "bare python": ["-c", "pass"],
    "acode --help": ["-m", "acode", "--help"],
    "acode config path": ["-m", "acode", "config", "path"],
    "acode summary": ["-m", "acode", "summary"],
}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best_of(args: list[str], repeat: int, cwd: Path, env: dict[str, str]) -> dict:
    """Best wall and CPU seconds over ``repeat`` runs, and the exit code of the last one."""
    wall, cpu, code = float("inf"), float("inf"), 0
    for _ in range(repeat):
        started, cpu_before = time.perf_counter(), _children_cpu()
        done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, check=False)
        wall = min(wall, time.perf_counter() - started)
        cpu = min(cpu, _children_cpu() - cpu_before)
        code = done.returncode
    return {"best_seconds": round(wall, 4), "best_cpu_seconds": round(cpu, 4), "exit_code": code}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-bytecode", action="store_true", help="compile from source on every start")
    parser.add_argument("--record", action="store_true",
                        help="also keep the result as a dated record in benchmarks/results/")
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        env = {**os.environ, "ACODE_CONFIG_HOME": str(Path(tmp) / "config"), "COLUMNS": "100"}
        if not args.no_bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        figures = {}
        for name, command in COMMANDS.items():
            best_of(command, 1, root, env)  # warm-up: bytecode written, files in the page cache
            figures[name] = best_of(command, args.repeat, root, env)
    bare = figures["bare python"]
    for entry in figures.values():
        entry["ratio"] = round(entry["best_seconds"] / bare["best_seconds"], 1)
        entry["cpu_ratio"] = round(entry["best_cpu_seconds"] / bare["best_cpu_seconds"], 1)
    import acode

    result = {"acode": str(Path(acode.__file__).parent), "repeat": args.repeat,
              "bytecode": not args.no_bytecode,
              "load_average": [round(x, 2) for x in os.getloadavg()], "commands": figures,
              "target": "acode --help <= 15x bare python",
              "met_wall": figures["acode --help"]["ratio"] <= 15,
              "met_cpu": figures["acode --help"]["cpu_ratio"] <= 15}
    print(json.dumps(result, indent=2))
    if args.record:
        from benchmarks.harness.results_record import write_record

        print(f"recorded in {write_record('startup', result, load_before=load_before)}", file=sys.stderr)


if __name__ == "__main__":
    main()
