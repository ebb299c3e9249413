"""`acode run` on the real embedded 0.5B model: the whole pipeline runs end to end and leaves a stored
summary and a complete event log. The verdict may go either way — this checks the pipeline, not luck."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from acode.config import load_settings
from acode.paths import ProjectPaths
from acode.pipeline.events import read_events
from acode.pipeline.human import HumanGate
from acode.pipeline.orchestrator import start_run
from acode.store.reviews import ReviewStore
from acode.store.summaries import SummaryStore
from acode.tools.builtin import default_registry

TASK = "add a function is_even(n) to util.py and a pytest test for it"

# Small budgets: two CPU cores are shared by everyone, the 0.5B makes ~20 tokens/s.
CONFIG = {
    "model": {"max_tokens": 256, "timeout_seconds": 1200},  # the shared machine can be very busy
    "pipeline": {"max_cycles": 1, "max_steps": 2, "agent_max_turns": 4, "plan_max_tokens": 256},
    "reviewer": {"strategy": "single_call", "lookaround": {"enabled": False}, "max_tokens_per_answer": 160,
                 "timeout_seconds": 600},
}


def _repo(path: Path) -> Path:
    path.mkdir()
    for args in (
        ["init", "-q", "-b", "main"],
        ["config", "user.email", "d@e.f"],
        ["config", "user.name", "D"],
    ):
        subprocess.run(["git", *args], cwd=path, check=True)
    (path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True)
    ProjectPaths(path).config_file.parent.mkdir()
    ProjectPaths(path).config_file.write_text(yaml.safe_dump(CONFIG))
    return path


@pytest.mark.real_model
def test_run_end_to_end_on_the_embedded_model(tmp_path, real_model):
    root = _repo(tmp_path / "repo")
    settings = load_settings(root)
    outcome = start_run(
        root,
        TASK,
        settings=settings,
        model=real_model,
        tools=default_registry(),
        human=HumanGate(policy="auto"),
        db_path=ProjectPaths(root).db_file,
    )

    print(
        json.dumps(
            {
                k: outcome.summary[k]
                for k in ("decision", "cycles", "levels", "changes", "verification", "duration_s")
            },
            indent=1,
        )
    )
    assert outcome.exit_code in (0, 50), outcome.summary["error"]
    stored = SummaryStore(ProjectPaths(root).db_file).get(outcome.session_id)
    assert stored["task"] == TASK and stored["decision"] in ("APPROVED", "REJECTED")
    assert stored["levels"] and stored["ended_at"] and stored["duration_s"] > 0
    run_dir = ProjectPaths(root).acode_dir / "runs" / outcome.session_id
    plan = json.loads((run_dir / "plan_v1.json").read_text())["plan"]
    assert 1 <= len(plan["steps"]) <= 2

    log = read_events(run_dir / "events.jsonl")
    entered = [e["stage"] for e in log if e["event"] == "stage_enter"]
    assert entered[0] == "plan" and entered[-1] == "review" and {"execute", "verify"} <= set(entered)
    decision = next(e for e in log if e["event"] == "review_decision")
    assert decision["decision"] == stored["decision"] and decision["levels"] == stored["levels"]
    assert log[-1]["event"] == "run_end"
    review = ReviewStore(ProjectPaths(root).db_file).get(stored["reviews"][0]["review_id"])
    assert review.source == "run"
