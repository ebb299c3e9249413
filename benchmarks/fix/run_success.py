"""How often `acode run` finishes a small real task APPROVED with passing tests, and how long it takes.

Each repetition makes a fresh temporary git repository holding util.py, runs the pipeline on
"add a function is_even(n) to util.py and a pytest test for it" with the embedded model (1.5B by
default), then checks the result independently: a test file that uses is_even exists and
`python -m pytest -q` passes on the final tree. Every model call is recorded with the stage it was made
in (tokens evaluated / reused from the KV cache / generated, seconds), so the figures say where the time
goes: planner, step writer (the execute stage), verifier, reviewer.

Baselines, measured in the same run so that both see the same machine load:
  --compare-src DIR   another checkout's code (e.g. /work/main/src) runs the same task in a child
                      process, one of its runs after each of ours (the load changes slowly: interleaving
                      shares it fairly);
  --agent-baseline    the plain agent loop (no plan / verify / review) on the same task.

The embedded model keeps the KV state of system prompts on disk (model.prompt_cache_mb): here in a new
empty folder, so the first run reads every prompt from scratch (as a first `acode run` does) and the
later ones load the planner's and the step writer's system prompts (as every later `acode run` does).

    python benchmarks/fix/run_success.py [--runs 5] [--model qwen2.5-coder-1.5b] [--compare-src DIR]
                                     [--dump-calls DIR]

Prints one JSON document (the load average before and after is part of it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

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


STAGES = {"plan": "planner", "execute": "step_writer", "verify": "verifier", "review": "reviewer"}


class RecordingModel:
    """The model, with every call recorded against the pipeline stage that made it (a run's event listener
    says which stage is running). ``scorer_of`` finds ``score_text`` here, ``inner`` is the real model."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.name, self.context_window = inner.name, inner.context_window
        self.stage = "none"
        self.calls: list[dict] = []

    def listen(self, event: dict) -> None:
        if event["event"] == "stage_enter":
            self.stage = STAGES.get(event["stage"], event["stage"])

    def complete(self, messages, **kwargs: Any):
        completion = self.inner.complete(messages, **kwargs)
        self._record("complete", completion.usage, finish=completion.finish_reason,
                     max_tokens=kwargs.get("max_tokens"), stop=bool(kwargs.get("stop")),
                     constrained=bool(kwargs.get("schema") or kwargs.get("tools")),
                     prompt=[m.model_dump(include={"role", "content"}) for m in messages],
                     reply=completion.text)
        return completion

    def score_text(self, prefix: str, text: str, **kwargs: Any):
        score = self.inner.score_text(prefix, text, **kwargs)
        self._record("score_text", score.usage, prompt=[{"role": "raw", "content": prefix + text}])
        return score

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def _record(self, kind: str, usage, **extra: Any) -> None:
        self.calls.append({"stage": self.stage, "kind": kind, "seconds": usage.seconds,
                           "prompt_tokens": usage.prompt_tokens, "evaluated": usage.prompt_tokens_evaluated,
                           "reused": usage.prompt_tokens_reused, "generated": usage.completion_tokens,
                           **extra})

    def take(self) -> list[dict]:
        calls, self.calls, self.stage = self.calls, [], "none"
        return calls


def calls_by_stage(calls: list[dict]) -> dict[str, dict]:
    out: dict[str, dict] = {}
    for call in calls:
        entry = out.setdefault(call["stage"], {"calls": 0, "seconds": 0.0, "evaluated": 0, "reused": 0,
                                               "generated": 0})
        entry["calls"] += 1
        entry["seconds"] = round(entry["seconds"] + call["seconds"], 1)
        for key in ("evaluated", "reused", "generated"):
            entry[key] += call[key]
    return out


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def stage_seconds(run_dir: Path) -> dict[str, float]:
    from acode.pipeline.events import read_events

    out: dict[str, float] = {}
    for event in read_events(run_dir / "events.jsonl"):
        if event["event"] == "stage_exit":
            name = STAGES.get(event["stage"], event["stage"])
            out[name] = round(out.get(name, 0.0) + event["duration_s"], 1)
    return out


def one_pipeline_run(workdir: Path, index: int, model: RecordingModel, config: dict,
                     dump: Path | None = None) -> dict:
    from acode.config import load_settings
    from acode.paths import ProjectPaths
    from acode.pipeline.human import HumanGate
    from acode.pipeline.orchestrator import start_run
    from acode.tools.builtin import default_registry

    root = make_repo(workdir / f"run{index}", config)
    load = load_average()
    model.take()
    started = time.monotonic()
    outcome = start_run(root, TASK, settings=load_settings(root), model=model, tools=default_registry(),
                        human=HumanGate(policy="auto"), db_path=ProjectPaths(root).db_file,
                        listeners=[model.listen])
    seconds = time.monotonic() - started
    calls = model.take()
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
        (dump / f"run{index}_calls.json").write_text(json.dumps(calls, indent=1))
    check = independent_check(root)
    summary = outcome.summary
    return {
        "seconds": round(seconds, 1),
        "load_average_before": load,
        "exit_code": outcome.exit_code,
        "decision": summary["decision"],
        "cycles": summary["cycles"],
        "levels_last_review": summary["levels"],
        "issues_last_review": [i["message"][:120] for i in summary["issues"]],
        "verification_passed": (summary["verification"] or {}).get("passed"),
        "stage_seconds": stage_seconds(ProjectPaths(root).acode_dir / "runs" / outcome.session_id),
        "model_calls": calls_by_stage(calls),
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


def compared_run(src: str, model_name: str, max_cycles: int) -> dict:
    """One pipeline run of another checkout's code (``src`` first on PYTHONPATH) in a child process."""
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run([sys.executable, __file__, "--runs", "1", "--model", model_name,
                           "--max-cycles", str(max_cycles)], env=env, capture_output=True, text=True,
                          timeout=3600, check=False)
    if done.returncode != 0:
        return {"error": done.stderr[-1000:]}
    report = json.loads(done.stdout)
    return report["pipeline_runs"][0] | {"model_load_seconds": report["model_load_seconds"]}


def aggregate(items: list[dict], key: str) -> dict:
    items = [r for r in items if "error" not in r]
    times = [r["seconds"] for r in items]
    out = {
        "runs": len(items),
        key: sum(bool(r[key]) for r in items),
        "rate": round(sum(bool(r[key]) for r in items) / len(items), 3) if items else None,
        "seconds_median": round(statistics.median(times), 1) if times else None,
        "seconds_min": min(times, default=None),
        "seconds_max": max(times, default=None),
    }
    if items and "stage_seconds" in items[0]:
        out["approved"] = sum(r["decision"].startswith("APPROVED") for r in items)
        out["approval_rate"] = round(out["approved"] / len(items), 3)
        out["tests_pass"] = sum(r["tests_pass"] for r in items)
        out["stage_seconds_median"] = {
            stage: round(statistics.median(r["stage_seconds"].get(stage, 0.0) for r in items), 1)
            for stage in STAGES.values()
        }
        out["model_calls_median"] = {
            stage: {key: statistics.median(r.get("model_calls", {}).get(stage, {}).get(key, 0) for r in items)
                    for key in ("calls", "seconds", "evaluated", "reused", "generated")}
            for stage in STAGES.values()
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--agent-baseline", action="store_true", help="also run the plain agent loop")
    parser.add_argument("--compare-src", help="another checkout's src/ to run the same task with")
    parser.add_argument("--max-cycles", type=int, default=2)
    parser.add_argument("--dump-calls", type=Path, help="write every model call (prompt, reply) here")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads (default: the model's setting)")
    args = parser.parse_args()

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    config = {"model": {"backend": "embedded", "name": args.model, "timeout_seconds": 1200},
              "pipeline": {"max_cycles": args.max_cycles}}
    load_at_start = load_average()
    runs, baseline, compared = [], [], []
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="acode-run-bench-") as tmp:
        model_settings = {"backend": "embedded", "name": args.model}
        if args.threads:
            model_settings["threads"] = args.threads
        if "prompt_cache_dir" in ModelSettings.model_fields:  # an empty prompt cache: the first run is cold
            model_settings["prompt_cache_dir"] = Path(tmp) / "prompt-cache"
        loaded = time.monotonic()
        model = RecordingModel(build_model(ModelSettings(**model_settings)))
        load_seconds = time.monotonic() - loaded
        try:
            for i in range(args.runs):
                runs.append(one_pipeline_run(Path(tmp), i, model, config, args.dump_calls))
                print(json.dumps({"progress": f"pipeline run {i + 1}/{args.runs}", **runs[-1]}),
                      file=sys.stderr)
                if args.compare_src:
                    compared.append(compared_run(args.compare_src, args.model, args.max_cycles))
                    print(json.dumps({"progress": f"compared run {i + 1}/{args.runs}", **compared[-1]}),
                          file=sys.stderr)
                if args.agent_baseline:
                    baseline.append(one_baseline_run(Path(tmp), i, model.inner, config))
                    print(json.dumps({"progress": f"baseline run {i + 1}/{args.runs}", **baseline[-1]}),
                          file=sys.stderr)
        except KeyboardInterrupt:  # Ctrl-C: report the runs that finished
            interrupted = True

    import acode

    report = {
        "task": TASK,
        "model": args.model,
        "src": str(Path(acode.__file__).parent),
        "model_load_seconds": round(load_seconds, 1),
        "load_average_start": load_at_start,
        "load_average_end": load_average(),
        "interrupted": interrupted,
        "pipeline": aggregate(runs, "approved_with_passing_tests"),
        "compared": aggregate(compared, "approved_with_passing_tests") | {"src": args.compare_src}
        if compared else None,
        "baseline_agent_only": aggregate(baseline, "tests_pass") if baseline else None,
        "pipeline_runs": runs,
        "compared_runs": compared,
        "baseline_runs": baseline,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
