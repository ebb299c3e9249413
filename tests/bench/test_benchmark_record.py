"""A benchmark run kept as a dated record: the result with the commit, the machine, the load and the
command, never overwriting an earlier record of the same day."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

from benchmarks.harness.results_record import write_record

REPO = Path(__file__).resolve().parents[2]


def test_a_record_holds_the_result_and_what_makes_it_comparable(tmp_path):
    first = write_record("startup", {"ratio": 7.5}, load_before=[3.0, 2.0, 1.0], folder=tmp_path,
                         argv=["benchmarks/speed/startup.py", "--record"])
    second = write_record("startup", {"ratio": 8.0}, load_before=[1.0, 1.0, 1.0], folder=tmp_path, argv=[])

    today = datetime.date.today().isoformat()
    assert (first.name, second.name) == (f"{today}-startup.json", f"{today}-startup-2.json")
    record = json.loads(first.read_text())
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert record["commit"] == head
    assert record["result"] == {"ratio": 7.5}
    assert record["load_before"] == [3.0, 2.0, 1.0] and len(record["load_after"]) == 3
    assert record["command"].endswith("benchmarks/speed/startup.py --record")
    assert record["machine"]["cpus"] >= 1
    assert json.loads(second.read_text())["result"] == {"ratio": 8.0}


def _record_run(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "benchmarks.harness.results_record", "--folder", str(tmp_path), *argv]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False, timeout=120)


def test_any_runner_run_through_the_recorder_leaves_its_printed_result_as_a_record(tmp_path):
    done = _record_run(tmp_path, "--label", "hostile", "benchmarks/security/trust_bench.py", "--hostile-only")

    assert done.returncode == 0, done.stderr
    [path] = tmp_path.iterdir()
    assert path.name == f"{datetime.date.today().isoformat()}-trust-bench-hostile.json"
    record = json.loads(path.read_text())
    assert record["result"] == json.loads(done.stdout) and "hostile" in record["result"]
    assert record["command"].endswith("benchmarks/security/trust_bench.py --hostile-only")
    assert f"recorded in {path}" in done.stderr


def test_a_run_that_prints_no_json_leaves_no_record(tmp_path):
    done = _record_run(tmp_path, "benchmarks/security/trust_bench.py", "--help")

    assert done.returncode == 2 and "usage: trust_bench.py" in done.stdout
    assert "did not print one JSON document" in done.stderr
    assert list(tmp_path.iterdir()) == []
