"""A benchmark run kept as a dated record in benchmarks/results/: the script's JSON result with what makes
it comparable later (the commit and whether the tree had local changes, the machine, the load before and
after, the exact command). See benchmarks/README.md, "Where results go"."""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
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
