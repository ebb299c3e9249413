"""Model speed per backend and bundled model, and what constrained decoding costs. Prints JSON.

    python benchmarks/speed/models.py [--models 0.5b|all|NAME,...] [--backends embedded,openai]
                                [--repeats 3] [--json-out FILE]

For each bundled model that is installed (0.5B by default, the 1.5B too with ``--models all``) and each
backend (``embedded``: llama.cpp in this process; ``openai``: llama-cpp-python's OpenAI-compatible
server, started here on 127.0.0.1, reached over HTTP), it measures:

- prompt processing tokens/s: a ~400-token prompt, one generated token; a fresh nonce at the start of
  every prompt so no KV prefix is reused;
- generation tokens/s: a streamed answer, tokens after the first divided by the time after the first;
- one tool decision for "create util.py, then run it", constrained (grammar / response_format) and
  unconstrained (the same tool instructions in the system prompt, the text parsed afterwards): seconds,
  tokens, and whether the decision is a valid call of the right tool.

Every figure names the same-run baseline it is compared against: the openai backend against the
embedded one, constrained decoding against unconstrained. The backends' runs are interleaved, so load
from other work on the machine falls on both sides of a comparison alike (the load average is recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acode.config.model import ModelSettings
from acode.errors import ModelError
from acode.llm.protocol import ChatModel
from acode.llm.structured import parse_tool_text, tools_prompt
from acode.llm.types import Message, ToolSpec

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

SMALL, LARGE = "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"
TOOLS = [
    ToolSpec(
        name="write_file",
        description="Create or overwrite a file with the given content.",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
    ),
    ToolSpec(
        name="run_shell",
        description="Run a shell command in the project folder and return its output.",
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
]
SYSTEM = (
    "You are a coding agent working in the user's project folder. Act with the tools, one step at a time."
)
TASK = "Create util.py that prints hello, then run it."
CODE = '''def moving_average(values, window):
    """Average of each run of `window` consecutive values."""
    if window <= 0:
        raise ValueError("window must be positive")
    total = sum(values[:window])
    out = [total / window]
    for index in range(window, len(values)):
        total += values[index] - values[index - window]
        out.append(total / window)
    return out
'''


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def summary(values: list[float]) -> dict[str, Any]:
    return {"median": round(statistics.median(values), 2), "runs": [round(v, 2) for v in values]}


# --- one run of each measurement -------------------------------------------------------------------------


def prompt_run(model: ChatModel) -> dict[str, float]:
    nonce = f"Run at {time.time_ns()}."  # a fresh first line: nothing reused from the KV cache
    prompt = f"{nonce}\nRead this code and say OK.\n\n" + CODE * 4
    started = time.perf_counter()
    completion = model.complete([Message.user(prompt)], max_tokens=1)
    tokens = completion.usage.prompt_tokens_evaluated
    return {"tokens": tokens, "rate": tokens / (time.perf_counter() - started)}


def generation_run(model: ChatModel, max_tokens: int = 64) -> dict[str, float] | None:
    stamps: list[float] = []
    started = time.perf_counter()
    completion = model.complete(
        [Message.user(f"({time.time_ns()}) Explain step by step how a hash map works in Python.")],
        max_tokens=max_tokens,
        on_text=lambda _piece: stamps.append(time.perf_counter()),
    )
    generated = completion.usage.completion_tokens
    if len(stamps) < 2 or generated < 2:
        return None
    return {"rate": (generated - 1) / (stamps[-1] - stamps[0]), "first_token": stamps[0] - started}


def decision_quality(arguments: dict[str, Any], name: str) -> dict[str, bool]:
    spec = next((t for t in TOOLS if t.name == name), None)
    valid = spec is not None and all(isinstance(arguments.get(k), str) for k in spec.parameters["required"])
    right = valid and name == "write_file" and str(arguments.get("path", "")).endswith("util.py")
    return {"valid_call": valid, "right_first_step": right}


def decision_run(model: ChatModel, constrained: bool) -> dict[str, Any]:
    """One decision for TASK. Constrained: tools passed, decoding held to the envelope schema.
    Unconstrained: the same tool instructions in the system prompt, the free text parsed afterwards."""
    system = f"Session {time.time_ns()}. {SYSTEM}"  # fresh prefix: both sides pay full prefill
    started = time.perf_counter()
    try:
        if constrained:
            completion = model.complete(
                [Message.system(system), Message.user(TASK)], tools=TOOLS, max_tokens=160
            )
            text, calls = completion.text, completion.tool_calls
        else:
            system = f"{system}\n\n{tools_prompt(TOOLS)}"
            completion = model.complete([Message.system(system), Message.user(TASK)], max_tokens=160)
            text, calls = parse_tool_text(completion.text, [t.name for t in TOOLS])
    except ModelError as exc:  # an answer that does not parse counts as a failed decision
        seconds = round(time.perf_counter() - started, 2)
        return {"seconds": seconds, "error": exc.code, "valid_call": False, "right_first_step": False}
    call = calls[0] if calls else None
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "prompt_tokens_evaluated": completion.usage.prompt_tokens_evaluated,
        "completion_tokens": completion.usage.completion_tokens,
        "tool": call.name if call else None,
        "arguments": call.arguments if call else None,
        "text": "" if call else text[:160],
        **(decision_quality(call.arguments, call.name) if call else decision_quality({}, "")),
    }


def decisions(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "seconds": summary([r["seconds"] for r in runs]),
        "valid_calls": sum(r["valid_call"] for r in runs),
        "right_first_steps": sum(r["right_first_step"] for r in runs),
        "of": len(runs),
        "runs": runs,
    }


def measure(models: dict[str, ChatModel], repeats: int) -> dict[str, Any]:
    """Every run of every backend, interleaved (A, B, A, B ...), so load from anything else on the machine
    falls on both sides of each comparison alike."""
    raw: dict[str, dict[str, list[Any]]] = {b: {"pp": [], "gen": [], "free": [], "held": []} for b in models}
    for backend, model in models.items():
        model.complete([Message.user("Say OK.")], max_tokens=2)  # warm-up: first allocations
        decision_run(model, constrained=True)  # warm-up: grammar, response_format negotiation
    for _ in range(repeats):
        for backend, model in models.items():
            raw[backend]["pp"].append(prompt_run(model))
            raw[backend]["gen"].append(generation_run(model))
            raw[backend]["free"].append(decision_run(model, constrained=False))
            raw[backend]["held"].append(decision_run(model, constrained=True))
    results: dict[str, Any] = {}
    for backend, runs in raw.items():
        gen = [g for g in runs["gen"] if g]
        free, held = decisions(runs["free"]), decisions(runs["held"])
        results[backend] = {
            "prompt_processing": {
                "prompt_tokens": runs["pp"][-1]["tokens"],
                "tokens_per_s": summary([r["rate"] for r in runs["pp"]]),
            },
            "generation": {
                "max_tokens": 64,
                "tokens_per_s": summary([g["rate"] for g in gen]),
                "seconds_to_first_token": summary([g["first_token"] for g in gen]),
            },
            "tool_decision": {
                "task": TASK,
                "baseline": "unconstrained",
                "unconstrained": free,
                "constrained": held,
                "constrained_time_ratio": round(
                    held["seconds"]["median"] / max(free["seconds"]["median"], 1e-9), 2
                ),
            },
        }
    return results


# --- backends -------------------------------------------------------------------------------------------


def embedded_backend(name: str) -> tuple[ChatModel, Callable[[], None]]:
    from acode.llm.factory import build_model

    return build_model(ModelSettings(backend="embedded", name=name, context_window=4096)), lambda: None


def openai_backend(name: str, workdir: Path) -> tuple[ChatModel, Callable[[], None]]:
    from acode.llm.bundled import resolve_model_path
    from acode.llm.openai.model import OpenAIModel
    from benchmarks.harness.llama_server import LlamaServer

    gguf = resolve_model_path(ModelSettings(name=name))
    server = LlamaServer(gguf, n_ctx=4096, log_file=workdir / f"{name}-server.log").start()
    settings = ModelSettings(
        backend="openai", base_url=server.base_url, name=name, context_window=4096, native_tool_calling="off"
    )
    return OpenAIModel(settings, caps_file=workdir / "server_caps.json"), server.stop


def compare_to_embedded(results: dict[str, Any]) -> None:
    if "embedded" not in results or "openai" not in results:
        return
    base, other = results["embedded"], results["openai"]

    def ratio(section: str) -> float:
        return round(
            other[section]["tokens_per_s"]["median"] / max(base[section]["tokens_per_s"]["median"], 1e-9), 2
        )

    other["vs_embedded"] = {
        "baseline": "embedded",
        "prompt_processing_ratio": ratio("prompt_processing"),
        "generation_ratio": ratio("generation"),
    }


def installed_models(choice: str) -> list[str]:
    from acode.llm.bundled import BUNDLED, installed_parts

    wanted = (
        [SMALL] if choice in ("0.5b", SMALL) else [SMALL, LARGE] if choice == "all" else choice.split(",")
    )
    available = []
    for name in wanted:
        model = BUNDLED.get(name)
        if model is None or installed_parts(model) < model.parts:
            log(f"skipping {name}: not installed")
            continue
        available.append(name)
    return available


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models", default="0.5b", help="0.5b (default), all, or bundled names joined by commas"
    )
    parser.add_argument("--backends", default="embedded,openai")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json-out", type=Path, default=None)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # unwind, so a started server is stopped

    import llama_cpp

    report: dict[str, Any] = {
        "benchmark": "models",
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "llama_cpp": llama_cpp.__version__,
        },
        "load_average_at_start": [
            round(x, 2) for x in os.getloadavg()
        ],  # other work on the cores skews speed
        "repeats": args.repeats,
        "models": {},
    }
    with tempfile.TemporaryDirectory(prefix="acode-bench-") as tmp:
        for name in installed_models(args.models):
            log(f"{name}: {args.backends} ...")
            models: dict[str, ChatModel] = {}
            closers: list[Callable[[], None]] = []
            try:
                for backend in args.backends.split(","):
                    opened = (
                        embedded_backend(name) if backend == "embedded" else openai_backend(name, Path(tmp))
                    )
                    models[backend], close = opened
                    closers.append(close)
                per_backend = measure(models, args.repeats)
            finally:
                for close in closers:
                    close()
            compare_to_embedded(per_backend)
            report["models"][name] = per_backend
    report["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = json.dumps(report, indent=2)
    print(text)
    if args.json_out:
        args.json_out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
