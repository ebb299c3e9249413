"""Per-turn cost of the agent's self-control checks (plan mode, compression metering, loop detection,
hooks, next-speaker rules, checkpoints) when no model check fires, against the time of one real agent
turn measured in the same run. Prints JSON.

    python benchmarks/speed/agent_checks.py [--turns 40] [--no-real] [--json-out FILE]

Method: a 40-turn scripted session (each turn reads a different ~2 KB file, every 4th edits one) runs
through the real AgentLoop, approval policy and tools with the middlewares the session factory builds
from default settings. Every hook call is timed. Token metering uses the real 0.5B tokenizer, so
compression's per-turn check costs what it costs in a real session (its window is set large enough that
it measures but does not fire; the model-based loop check starts only after 30 turns and is turned off
here, since it is a model call). The baseline is one real turn of the embedded 0.5B model: the same
system prompt, tools and a short history, asked for one tool decision (max 64 tokens).
``benchmarks/speed/agent.py`` imports ``measure_check_overhead`` for its report.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from acode.agent.loop.middleware import Middleware
from acode.config.settings import Settings
from acode.llm.scripted import ScriptedModel

HOOKS = ("on_user_prompt", "before_model", "after_model", "before_tool", "after_tool", "on_final_answer")
TARGET_PERCENT = 3.0


class Timed(Middleware):
    """Delegates every hook to ``inner`` and adds up the time spent in it."""

    def __init__(self, inner: Middleware, totals: dict[str, float]):
        self.inner, self.totals, self.name = inner, totals, inner.name
        for hook in (*HOOKS, "on_session_start", "on_session_end"):
            setattr(self, hook, self._timed(getattr(inner, hook)))

    def _timed(self, fn):
        def call(*args, **kwargs):
            started = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.totals[self.name] += time.perf_counter() - started

        return call


def _workspace(turns: int) -> Path:
    ws = Path(tempfile.mkdtemp(prefix="acode-bench-"))
    for i in range(turns):
        (ws / f"mod{i:02d}.py").write_text(
            f"# module {i}\n" + "".join(f"def f{j}(x):\n    return x + {j}\n" for j in range(60)))
    return ws


def _script(turns: int) -> list[Any]:
    steps: list[Any] = []
    for i in range(turns - 1):
        if i % 4 == 3:
            steps.append({"tool": "replace", "arguments": {
                "file_path": f"mod{i:02d}.py", "old_string": "return x + 0", "new_string": "return x"}})
        else:
            steps.append({"tool": "read_file", "arguments": {"file_path": f"mod{i:02d}.py"}})
    steps.append("Simplified the f0 functions.")
    return steps


def measure_check_overhead(turns: int = 40, tokenizer=None,
                           turn_seconds: float | None = None) -> dict[str, Any]:
    """Seconds per turn spent in the self-control middlewares of a scripted session; with
    ``turn_seconds`` (a real turn measured in the same run) also the percentage of a turn."""
    from acode.agent.session.agent_session import SessionOptions
    from acode.agent.session.builder import build_session

    ws = _workspace(turns)
    settings = Settings.model_validate(
        {"compression": {"threshold": 0.9}, "loop_detection": {"model_check": False},
         "model": {"context_window": 1_000_000}}
    )
    model = ScriptedModel(_script(turns), context_window=1_000_000)
    if tokenizer is not None:
        model.count_tokens = tokenizer  # type: ignore[method-assign]
    totals: dict[str, float] = defaultdict(float)
    session = build_session(settings, ws, SessionOptions(approval_mode="yolo"), model=model)
    session.loop.middlewares = [Timed(m, totals) for m in session.loop.middlewares]
    started = time.perf_counter()
    result = session.send("Simplify f0 in the modules.")
    wall = time.perf_counter() - started
    session.close()
    checks = sum(totals.values())
    percent = {} if not turn_seconds else {
        "baseline_real_turn_seconds": round(turn_seconds, 3),
        "checks_percent_of_turn": round(100 * checks / max(1, result.turns) / turn_seconds, 3),
        "target_percent": TARGET_PERCENT,
        "within_target": 100 * checks / max(1, result.turns) / turn_seconds < TARGET_PERCENT,
    }
    return {
        **percent,
        "turns": result.turns,
        "stop_reason": result.stop_reason,
        "checks_seconds_per_turn": checks / max(1, result.turns),
        "per_middleware_ms_per_turn": {k: round(1000 * v / max(1, result.turns), 4)
                                       for k, v in totals.items()},
        "scripted_turn_seconds_total": wall / max(1, result.turns),
        "history_messages": len(session.state.history),
    }


def real_turn_seconds(repeats: int = 2) -> tuple[float, Any]:
    """Seconds of one real agent turn (0.5B, embedded): system prompt, tools, short history."""
    from acode.agent.session.builder import chat_registry
    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model
    from acode.llm.types import Message

    model = build_model(ModelSettings(backend="embedded", name="qwen2.5-coder-0.5b", context_window=4096))
    registry = chat_registry(False)
    history = [
        Message.system(
            "You are acode, a coding agent. Each reply is exactly one tool call, or a short answer."),
        Message.user(f"Read mod{0:02d}.py and simplify f0."),
    ]
    times = []
    for i in range(repeats):
        history[1] = Message.user(f"Read mod{i:02d}.py and simplify f0.")  # a new prompt: no full KV reuse
        started = time.perf_counter()
        model.complete(history, tools=registry.specs(), max_tokens=64)
        times.append(time.perf_counter() - started)
    return statistics.median(times), model.count_tokens


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--no-real", action="store_true", help="skip the real-model baseline (no percentage)")
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args(argv)

    report: dict[str, Any] = {"benchmark": "agent_checks",
                              "method": __doc__.split("Method: ", 1)[1].split("\n\n")[0].replace("\n", " ")}
    tokenizer = None
    turn = None
    if not args.no_real:
        turn, tokenizer = real_turn_seconds()
    report.update(measure_check_overhead(args.turns, tokenizer, turn))
    text = json.dumps(report, indent=2)
    if args.json_out:
        args.json_out.write_text(text + "\n")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
