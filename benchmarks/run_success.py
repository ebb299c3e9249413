"""How often `acode run` finishes a small real task APPROVED with passing tests, and how long it takes.

Each repetition makes a fresh temporary git repository holding util.py, runs the pipeline on
"add a function is_even(n) to util.py and a pytest test for it" with the embedded model (1.5B by
default), then checks the result independently: a test file that uses is_even exists and
`python -m pytest -q` passes on the final tree. As a baseline measured in the same process, the plain
agent loop (no plan / verify / review) gets the same task in another fresh repository.

    python benchmarks/run_success.py [--runs 3] [--model qwen2.5-coder-1.5b] [--no-baseline]

Prints one JSON document.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

TASK = "add a function is_even(n) to util.py and a pytest test for it"


def make_repo(path: Path, config: dict) -> Path:
    path.mkdir(parents=True)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "b@e.f"],
                 ["config", "user.name", "B"]):
        subprocess.run(["git", *args], cwd=path, check=True)
    (path / "util.py").write_text("def add(a, b):\n    return a + b\n")
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True)
    (path / ".acode").mkdir()
    (path / ".acode" / "config.yml").write_text(yaml.safe_dump(config))
    return path


def independent_check(root: Path) -> dict:
    """Does the final tree have a test of is_even, and do the tests pass?"""
    tests = [p for p in root.rglob("*.py") if ".acode" not in p.parts and
             (p.name.startswith("test_") or p.name.endswith("_test.py"))
             and "is_even" in p.read_text(errors="replace")]
    util = (root / "util.py").read_text(errors="replace") if (root / "util.py").is_file() else ""
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                          capture_output=True, text=True, timeout=300, check=False)
    return {
        "is_even_defined": "def is_even" in util,
        "test_files": [str(p.relative_to(root)) for p in tests],
        "pytest_exit": done.returncode,
        "tests_pass": bool(tests) and done.returncode == 0,
        "pytest_tail": done.stdout[-300:],
    }


def stage_seconds(run_dir: Path) -> dict[str, float]:
    from acode.pipeline.events import read_events

    out: dict[str, float] = {}
    for event in read_events(run_dir / "events.jsonl"):
        if event["event"] == "stage_exit":
            out[event["stage"]] = round(out.get(event["stage"], 0.0) + event["duration_s"], 1)
    return out


def one_pipeline_run(workdir: Path, index: int, model, config: dict) -> dict:
    from acode.config import load_settings
    from acode.paths import ProjectPaths
    from acode.pipeline.human import HumanGate
    from acode.pipeline.orchestrator import start_run
    from acode.tools.builtin import default_registry

    root = make_repo(workdir / f"run{index}", config)
    started = time.monotonic()
    outcome = start_run(root, TASK, settings=load_settings(root), model=model, tools=default_registry(),
                        human=HumanGate(policy="auto"), db_path=ProjectPaths(root).db_file)
    seconds = time.monotonic() - started
    check = independent_check(root)
    summary = outcome.summary
    return {
        "seconds": round(seconds, 1),
        "exit_code": outcome.exit_code,
        "decision": summary["decision"],
        "cycles": summary["cycles"],
        "levels_last_review": summary["levels"],
        "issues_last_review": [i["message"][:120] for i in summary["issues"]],
        "verification_passed": (summary["verification"] or {}).get("passed"),
        "stage_seconds": stage_seconds(ProjectPaths(root).acode_dir / "runs" / outcome.session_id),
        "changes": [f"{c['mark']} {c['path']} +{c['added']} -{c['removed']}" for c in summary["changes"]],
        "approved_with_passing_tests": summary["decision"] == "APPROVED" and check["tests_pass"],
        **check,
    }


def one_baseline_run(workdir: Path, index: int, model, settings_config: dict) -> dict:
    """The plain agent loop on the same task: no plan, no verifier, no reviewer."""
    from acode.agent.approval.policy import ApprovalPolicy
    from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
    from acode.config import load_settings
    from acode.tools.base import ToolContext
    from acode.tools.builtin import default_registry

    root = make_repo(workdir / f"baseline{index}", settings_config)
    settings = load_settings(root)
    config = LoopConfig.from_settings(settings)
    config.max_turns = settings.pipeline.agent_max_turns * 2
    tools = default_registry().subset(["read_file", "write_file", "replace", "list_directory"])
    loop = AgentLoop(model, tools, ToolContext(workspace=root), config=config, policy=ApprovalPolicy())
    state = loop.new_state("You are a coding agent. Use the tools to change files; "
                           "answer in plain text when done.",
                           session_id=f"baseline{index}", approval_mode="auto_edit")
    started = time.monotonic()
    result = loop.run(state, TASK)
    seconds = time.monotonic() - started
    return {"seconds": round(seconds, 1), "stop_reason": result.stop_reason, "turns": result.turns,
            **independent_check(root)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--max-cycles", type=int, default=2)
    args = parser.parse_args()

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    config = {"model": {"backend": "embedded", "name": args.model, "timeout_seconds": 1200},
              "pipeline": {"max_cycles": args.max_cycles}}
    loaded = time.monotonic()
    model = build_model(ModelSettings(backend="embedded", name=args.model))
    load_seconds = time.monotonic() - loaded
    runs, baseline = [], []
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="acode-run-bench-") as tmp:
        try:
            for i in range(args.runs):
                runs.append(one_pipeline_run(Path(tmp), i, model, config))
                print(json.dumps({"progress": f"pipeline run {i + 1}/{args.runs}", **runs[-1]}),
                      file=sys.stderr)
                if not args.no_baseline:
                    baseline.append(one_baseline_run(Path(tmp), i, model, config))
                    print(json.dumps({"progress": f"baseline run {i + 1}/{args.runs}", **baseline[-1]}),
                          file=sys.stderr)
        except KeyboardInterrupt:  # Ctrl-C: report the runs that finished
            interrupted = True

    def aggregate(items: list[dict], key: str) -> dict:
        times = [r["seconds"] for r in items]
        return {
            "runs": len(items),
            key: sum(bool(r[key]) for r in items),
            "rate": round(sum(bool(r[key]) for r in items) / len(items), 3) if items else None,
            "seconds_median": round(statistics.median(times), 1) if times else None,
            "seconds_min": min(times, default=None),
            "seconds_max": max(times, default=None),
        }

    report = {
        "task": TASK,
        "model": args.model,
        "model_load_seconds": round(load_seconds, 1),
        "interrupted": interrupted,
        "pipeline": aggregate(runs, "approved_with_passing_tests")
        | {"approved": sum(r["decision"].startswith("APPROVED") for r in runs),
           "tests_pass": sum(r["tests_pass"] for r in runs)},
        "baseline_agent_only": aggregate(baseline, "tests_pass") if baseline else None,
        "pipeline_runs": runs,
        "baseline_runs": baseline,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
