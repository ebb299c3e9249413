"""Time the agent spends outside the model per tool step, against the model's own time for that step,
on the embedded model (target: under 5%). Also runs the self-control check overhead
(benchmarks/speed/agent_checks.py) and search_in_files vs git grep (benchmarks/speed/search_bench.py).
Prints JSON.

    python benchmarks/speed/agent.py [--model qwen2.5-coder-0.5b] [--scripted-steps 60] [--no-real]
        [--no-search]

Method:
- real: one `create hello.py that prints hello, then run it` session (yolo) on the embedded model through
  AgentSession - the same loop, approval, middlewares, SQLite recording and tools as `acode -p`. An
  observer timestamps each turn (from one model call's start to the next); outside-the-model time of a
  step = turn wall time - model seconds - tool seconds.
- scripted: the same session machinery driven by the scripted model for N tool steps (reads and writes
  of small files), giving the loop's own cost per step without model noise. The headline ratio is that
  per-step cost over the median real model time per step measured in the same run.
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
from typing import Any

from acode.agent.loop.observer import LoopObserver

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

TARGET_PERCENT = 5.0


class StepTimer(LoopObserver):
    def __init__(self) -> None:
        self.turns: list[dict[str, Any]] = []
        self._start = 0.0

    def _close(self) -> None:
        if self.turns and "wall" not in self.turns[-1]:
            self.turns[-1]["wall"] = time.perf_counter() - self._start

    def on_model_start(self, state) -> None:
        self._close()
        self._start = time.perf_counter()
        self.turns.append({"model": 0.0, "tools": 0.0, "calls": []})

    def on_model_step(self, state, step) -> None:
        self.turns[-1]["model"] = step.seconds

    def on_tool_step(self, state, step, result) -> None:
        self.turns[-1]["tools"] += step.seconds
        self.turns[-1]["calls"].append(step.name)

    def on_stop(self, state, result) -> None:
        self._close()


def _session(settings, root: Path, timer: StepTimer, model=None):
    from acode.agent.session.agent_session import SessionOptions
    from acode.agent.session.builder import build_session

    return build_session(settings, root, SessionOptions(approval_mode="yolo", observers=[timer]), model=model)


def _repo() -> Path:
    root = Path(tempfile.mkdtemp(prefix="acode-agent-bench-")) / "repo"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


def _rows(timer: StepTimer) -> list[dict[str, Any]]:
    rows = []
    for turn in timer.turns:
        outside = max(0.0, turn["wall"] - turn["model"] - turn["tools"])
        rows.append({
            "calls": turn["calls"],
            "model_s": round(turn["model"], 4),
            "tool_s": round(turn["tools"], 4),
            "outside_model_s": round(outside, 4),
            "outside_pct_of_model": round(100 * outside / turn["model"], 3) if turn["model"] else None,
        })
    return rows


def real_run(model_name: str) -> dict[str, Any]:
    from acode.config import Settings

    settings = Settings.model_validate(
        {"model": {"backend": "embedded", "name": model_name, "context_window": 4096, "max_tokens": 200},
         "agent": {"max_turns": 6}}
    )
    timer = StepTimer()
    root = _repo()
    session = _session(settings, root, timer)
    result = session.send("create hello.py that prints hello, then run it")
    session.close()
    rows = _rows(timer)
    tool_rows = [r for r in rows if r["calls"]]
    return {
        "model": model_name,
        "stop_reason": result.stop_reason,
        "steps": rows,
        "median_model_s_per_step": statistics.median(r["model_s"] for r in rows) if rows else None,
        "max_outside_pct_of_model": max((r["outside_model_s"] / r["model_s"] * 100 for r in tool_rows
                                         if r["model_s"]),
                                        default=None),
        "hello_py": (root / "hello.py").read_text() if (root / "hello.py").exists() else None,
    }


def scripted_run(steps: int) -> dict[str, Any]:
    from acode.config import Settings
    from acode.llm.scripted import ScriptedModel

    root = _repo()
    for i in range(steps):
        (root / f"f{i}.py").write_text(f"value_{i} = {i}\n" * 40)
    script: list[Any] = []
    for i in range(steps):
        if i % 4 == 3:
            script.append(
                {"tool": "write_file", "arguments": {"file_path": f"out{i}.py", "content": f"x = {i}\n"}})
        else:
            script.append({"tool": "read_file", "arguments": {"file_path": f"f{i}.py"}})
    script.append("Done.")
    # model-calling checks (compression, loop check, next speaker) are timed by agent_checks.py
    off = {name: {"enabled": False} for name in ("next_speaker", "compression", "loop_detection")}
    settings = Settings.model_validate({"agent": {"max_turns": steps + 5}, **off})
    timer = StepTimer()
    session = _session(settings, root, timer, model=ScriptedModel(script))
    result = session.send("read the files")
    session.close()
    rows = _rows(timer)[:-1]  # the last turn is the final answer
    outside = [r["outside_model_s"] for r in rows]
    return {
        "steps": len(rows),
        "stop_reason": result.stop_reason,
        "outside_model_ms_per_step_median": round(1000 * statistics.median(outside), 3),
        "outside_model_ms_per_step_p95": round(1000 * sorted(outside)[int(0.95 * (len(outside) - 1))], 3),
        "tool_ms_per_step_median": round(1000 * statistics.median(r["tool_s"] for r in rows), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--scripted-steps", type=int, default=60)
    parser.add_argument("--no-real", action="store_true", help="skip the embedded-model run")
    parser.add_argument("--no-search", action="store_true", help="skip search_in_files vs git grep")
    parser.add_argument("--no-checks", action="store_true", help="skip the self-control check overhead")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"benchmark": "agent loop overhead per tool step",
                              "target_percent": TARGET_PERCENT}
    report["scripted"] = scripted_run(args.scripted_steps)
    if not args.no_real:
        real = real_run(args.model)
        report["real"] = real
        per_step_model = real["median_model_s_per_step"]
        if per_step_model:
            pct = 100 * report["scripted"]["outside_model_ms_per_step_median"] / 1000 / per_step_model
            report["outside_model_pct_of_step"] = round(pct, 3)
            report["within_target"] = pct < TARGET_PERCENT
    if not args.no_checks and (Path(__file__).parent / "agent_checks.py").exists():
        from benchmarks.speed.agent_checks import measure_check_overhead

        real_step = report.get("real", {}).get("median_model_s_per_step")
        report["self_control_checks"] = measure_check_overhead(turn_seconds=real_step)
    if not args.no_search and (Path(__file__).parent / "search_bench.py").exists():
        from benchmarks.speed.search_bench import run_search_benchmark

        report["search"] = run_search_benchmark(repeats=1)
    text = json.dumps(report, indent=2)
    if args.json_out:
        args.json_out.write_text(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
