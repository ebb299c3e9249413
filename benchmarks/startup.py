"""How long does acode take to start, against a bare Python start?

Each command runs in a fresh process (``python -m acode ...``) in an empty temporary git repository;
the best of ``--repeat`` runs is kept (the machine is shared, the best run is the one least disturbed).
``ratio`` is a command's best time over the bare ``python -c pass`` best. Target (issue 28): ``acode
--help`` <= 15x a bare Python start. Prints JSON.

    python benchmarks/startup.py --repeat 7
    PYTHONPATH=/work/main/src python benchmarks/startup.py     # another checkout's code
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = {
    "bare python": ["-c", "pass"],
    "acode --help": ["-m", "acode", "--help"],
    "acode config path": ["-m", "acode", "config", "path"],
    "acode summary": ["-m", "acode", "summary"],
}


def best_of(args: list[str], repeat: int, cwd: Path, env: dict[str, str]) -> tuple[float, int]:
    """Best wall seconds over ``repeat`` runs, and the exit code of the last one."""
    best, code = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, check=False)
        best = min(best, time.perf_counter() - started)
        code = done.returncode
    return best, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "project"
        root.mkdir()
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        env = {**os.environ, "ACODE_CONFIG_HOME": str(Path(tmp) / "config"), "COLUMNS": "100"}
        figures = {}
        for name, command in COMMANDS.items():
            seconds, code = best_of(command, args.repeat, root, env)
            figures[name] = {"best_seconds": round(seconds, 4), "exit_code": code}
    bare = figures["bare python"]["best_seconds"]
    for entry in figures.values():
        entry["ratio"] = round(entry["best_seconds"] / bare, 1)
    import acode

    print(json.dumps({"acode": str(Path(acode.__file__).parent), "repeat": args.repeat,
                      "load_average": [round(x, 2) for x in os.getloadavg()], "commands": figures,
                      "target": "acode --help <= 15x bare python",
                      "met": figures["acode --help"]["ratio"] <= 15}, indent=2))


if __name__ == "__main__":
    main()
