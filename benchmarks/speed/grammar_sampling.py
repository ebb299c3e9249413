"""What decoding under a grammar costs per token, with the grammar checking the most likely token first
(acode.llm.greedy_grammar, the default) against llama.cpp's grammar sampler in the chain (the baseline,
in the same run, on the same loaded model).

Each call is a greedy JSON-schema completion (the planner's plan schema, a yes/no verdict, a tool call),
made ``--repeat`` times each way in turn. Per token it times the sampling (``Llama.sample``: the grammar
lives there) and the decode (``Llama.eval``) separately: the sampling is what changed and is single-
threaded CPU work, so its ratio holds under load; the decode is the model's and moves with the load.
Also reports whether both ways gave the same text (they must: greedy picks the same token) and how
often the grammar refused the most likely token (then the whole vocabulary is checked, as before).
Prints JSON.

    flock /tmp/acode-model.lock python benchmarks/speed/grammar_sampling.py --model qwen2.5-coder-1.5b
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def calls():
    from acode.llm.types import Message, ToolSpec
    from acode.pipeline.models import Plan

    verdict = {"type": "object", "required": ["answer", "why"], "properties": {
        "answer": {"type": "string", "enum": ["yes", "no"]}, "why": {"type": "string"}}}
    read = ToolSpec(name="read_file", description="Read a file and return its text", parameters={
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
    return {
        "plan": {"messages": [Message.system("You are the planner of a coding agent."),
                              Message.user("Plan: add a function is_even(n) to util.py and a pytest test.")],
                 "schema": Plan.model_json_schema()},
        "verdict": {"messages": [Message.user("Is 7 a prime number? Answer with JSON.")], "schema": verdict},
        "tool call": {"messages": [Message.user("Show me the contents of setup.py")], "tools": [read]},
    }


class Timed:
    """Wraps the loaded llama's sample and eval to add up their seconds (and count the samples)."""

    def __init__(self, llm):
        self.sample_seconds = self.eval_seconds = 0.0
        self.samples = 0
        llm.sample = self._timed(llm.sample, "sample_seconds", counted=True)
        llm.eval = self._timed(llm.eval, "eval_seconds")

    def _timed(self, call, seconds: str, counted: bool = False):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                setattr(self, seconds, getattr(self, seconds) + time.perf_counter() - started)
                self.samples += counted

        return timed


def one(model, timed: Timed, call: dict, first: bool) -> dict:
    from acode.llm import greedy_grammar
    from acode.llm.embedded import EmbeddedModel

    EmbeddedModel.grammar_checks_argmax_first = first
    made: list = []
    original = greedy_grammar.GreedyGrammar.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    greedy_grammar.GreedyGrammar.__init__ = recording
    timed.sample_seconds = timed.eval_seconds = 0.0
    timed.samples = 0
    try:
        completion = model.complete(max_tokens=200, **call)
    finally:
        greedy_grammar.GreedyGrammar.__init__ = original
    text = completion.text + json.dumps([[t.name, t.arguments] for t in completion.tool_calls])
    tokens = max(1, timed.samples)
    return {"text": text, "tokens": completion.usage.completion_tokens,
            "sample_ms_per_token": 1000 * timed.sample_seconds / tokens,
            "decode_ms_per_token": 1000 * timed.eval_seconds / tokens,
            "whole_vocabulary_checks": sum(g.whole_vocabulary_checks for g in made)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads (1: the sampling's "
                        "share is then not hidden by threads waiting for each other)")
    args = parser.parse_args()

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model
    from benchmarks.harness.results_record import load

    load_before = load()
    model = build_model(ModelSettings(backend="embedded", name=args.model, threads=args.threads,
                                      prompt_cache_mb=0))
    timed = Timed(model._llm)
    report: dict = {"benchmark": "grammar_sampling", "model": args.model, "threads": args.threads,
                    "repeat": args.repeat, "load_average_before": load_before, "calls": {}}
    for name, call in calls().items():
        runs: dict[str, list[dict]] = {"grammar in the chain": [], "argmax checked first": []}
        for _ in range(args.repeat):
            runs["grammar in the chain"].append(one(model, timed, call, first=False))
            runs["argmax checked first"].append(one(model, timed, call, first=True))
        texts = {run["text"] for arm in runs.values() for run in arm}
        report["calls"][name] = {
            "same_text": len(texts) == 1,
            "tokens": runs["argmax checked first"][0]["tokens"],
            **{arm: {key: round(statistics.median(run[key] for run in arm_runs), 2) for key in
                     ("sample_ms_per_token", "decode_ms_per_token", "whole_vocabulary_checks")}
               for arm, arm_runs in runs.items()},
        }
        print(json.dumps({"progress": name, **report["calls"][name]}), file=sys.stderr)
    report["load_average_after"] = load()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
