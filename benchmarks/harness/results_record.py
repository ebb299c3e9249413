"""A benchmark run kept as a dated record in benchmarks/results/: the script's JSON result with what makes
it comparable later (the commit and whether the tree had local changes, the machine, the load before and
after, the exact command). See benchmarks/README.md, "Where results go".

Any runner's run is kept so by running it through this module, which prints what the runner prints:

    python -m benchmarks.harness.results_record [--label LABEL] benchmarks/speed/models.py --models 0.5b
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "results"


def load() -> list[float]:
    return [round(value, 2) for value in os.getloadavg()]


def write_record(script: str, result: dict, *, load_before: list[float], label: str = "",
                 folder: Path = RESULTS, argv: list[str] | None = None) -> Path:
    """Write ``<date>-<script>[-<label>].json`` under ``folder`` (``-2``, ``-3`` ... when that name is
    taken the same day) and return its path."""
    repo = Path(__file__).resolve().parents[2]
    stem = "-".join(part for part in (datetime.date.today().isoformat(), script, label) if part)
    path = folder / f"{stem}.json"
    count = 1
    while path.exists():
        count += 1
        path = folder / f"{stem}-{count}.json"
    record = {
        "script": script,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "commit": _git(repo, "rev-parse", "HEAD"),
        "local_changes": bool(_git(repo, "status", "--porcelain", "--untracked-files=no")),
        "command": " ".join([Path(sys.executable).name, *(sys.argv if argv is None else argv)]),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count()},
        "load_before": load_before,
        "load_after": load(),
        "result": result,
    }
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def record_run(argv: list[str] | None = None) -> int:
    """Run a benchmark (``python RUNNER ARGS...``), print its output, and keep its JSON result as a record
    named after the runner (``startup``, ``sandbox-cost``); no record when it fails or prints no JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.harness.results_record",
                                     description="Run a benchmark, keep its JSON result as a dated record.")
    parser.add_argument("--label", default="", help="added to the record's name: <date>-<script>-<label>")
    parser.add_argument("--folder", type=Path, default=RESULTS, help="where the record goes")
    parser.add_argument("runner", help="the runner's path, e.g. benchmarks/speed/startup.py")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the runner's own options")
    args = parser.parse_args(argv)
    load_before = load()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        child = subprocess.Popen([sys.executable, args.runner, *args.args], stdout=out)
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:  # the runner got Ctrl-C too: it reports the tasks that finished
                continue
        out.seek(0)
        printed = out.read()
    sys.stdout.write(printed)
    sys.stdout.flush()
    if code != 0:
        print(f"no record: {args.runner} exited with {code}", file=sys.stderr)
        return code
    try:
        result = json.loads(printed)
    except json.JSONDecodeError:
        print(f"no record: {args.runner} did not print one JSON document", file=sys.stderr)
        return 2
    script = Path(args.runner).stem.replace("_", "-")
    path = write_record(script, result, load_before=load_before, label=args.label, folder=args.folder,
                        argv=[args.runner, *args.args])
    print(f"recorded in {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(record_run())
