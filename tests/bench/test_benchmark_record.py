"""A benchmark run kept as a dated record: the result with the commit, the machine, the load and the
command, never overwriting an earlier record of the same day."""

from __future__ import annotations

import datetime
import json
import subprocess
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
