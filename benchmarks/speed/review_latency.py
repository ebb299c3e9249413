"""How long does `acode review` take, and what does sharing the context prefix save?

Two changes in temporary repositories: a simple one (one file, < 50 changed lines) and a complex one
(10 files, ~500 changed lines). Each is reviewed, in the same run and on the same loaded model, by:
  - per_dimension: the five dimension prompts share one prefix (system + context), so the embedded
    backend evaluates the context once and reuses it from the KV cache;
  - naive: the same prompts with a per-dimension line at the very start, so the full context is
    evaluated again for every dimension (the baseline);
  - single_call: one prompt for all dimensions (`--suggest`);
  - checks_only: no proposal call, the regression check and the evidence only (the default strategy).
Each review's seconds are broken down by step (evidence, proposals, checks, regression) from its progress
messages, and ``per_call`` lists every model call's prompt tokens evaluated and reused from the KV cache;
``--repeat N`` reviews each N times and reports the median run.
Prints JSON: wall seconds, prompt tokens evaluated vs reused, calls, decision, per design and change.
Targets: simple <= 30 s, complex <= 120 s on the 1.5B model (spec); one-file review median <= 20 s (issue 15).

``+diff`` after a design (``checks_only+diff``) turns the behavioural diff on for it (run the old and new
version of each changed function in the sandbox), so diff on and off are timed in the same run; the
``onefile`` change (a module of three functions, one of which changes behaviour on purpose, one rewritten
with the same behaviour) and the ``logic`` change (``and`` for ``or`` in an auth check) are the one-file
changes of issue 31. The report carries the load average (``uptime``) before and after.

``--fresh-process``: instead, the first review in a new `acode review` process (model load included), once
where the tests decide and no step asks the model, once where the likelihood check does
(benchmarks/speed/review_first_run.py); ``--src`` names the checkout those processes run, for before/after.

    python benchmarks/speed/review_latency.py                 # embedded qwen2.5-coder-1.5b
    python benchmarks/speed/review_latency.py --fresh-process --repeat 3 [--src /other/checkout/src]
    python benchmarks/speed/review_latency.py --model qwen2.5-coder-0.5b --designs per_dimension,naive
    python benchmarks/speed/review_latency.py --changes onefile,logic \\
        --designs checks_only,checks_only+diff --repeat 5
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPO = Path(__file__).resolve().parents[2]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def module_text(index: int, functions: int, variant: str) -> str:
    """A plausible module: small documented functions; ``variant`` changes bodies so diffs are real."""
    parts = [f'"""Helpers for inventory area {index}."""\n\nfrom __future__ import annotations\n']
    for n in range(functions):
        factor = n + 2 if variant == "old" else n + 3
        check = "value < 0" if variant == "old" else "value <= 0"
        parts.append(
            f"\n\ndef adjust_{index}_{n}(value: int, items: list[int]) -> int:\n"
            f'    """Scale ``value`` by {factor} and add the positive ``items``; negative values are '
            'refused."""\n'
            f"    if {check}:\n"
            f"        raise ValueError('value must be positive')\n"
            f"    total = value * {factor}\n"
            f"    for item in items:\n"
            f"        if item > 0:\n"
            f"            total += item\n"
            f"    return total\n"
        )
    return "".join(parts)


def build(root: Path, files: int, functions: int) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "commit.gpgsign", "false")
    for i in range(files):
        (root / f"area_{i}.py").write_text(module_text(i, functions, "old"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Inventory helpers")
    git(root, "switch", "-q", "-c", "change")
    for i in range(files):
        (root / f"area_{i}.py").write_text(module_text(i, functions, "new"))
    git(root, "commit", "-qam", "Raise the scale factors and refuse zero values")
    return root


ONEFILE_OLD = '''"""Prices and discounts of the shop."""


def unit_price(cents: int, quantity: int) -> int:
    """The price of one item when ``quantity`` are bought: 5% off from 10 items on."""
    if quantity >= 10:
        return cents * 95 // 100
    return cents


def total(prices: list[int]) -> int:
    """The sum of ``prices``, leaving out negative entries (refunds are booked elsewhere)."""
    result = 0
    for price in prices:
        if price >= 0:
            result += price
    return result


def label(cents: int) -> str:
    """The price as text: 1234 -> '12.34 EUR'."""
    return f"{cents // 100}.{cents % 100:02d} EUR"
'''
ONEFILE_NEW = (ONEFILE_OLD.replace("5% off from 10 items on", "5% off from 12 items on")
               .replace("if quantity >= 10:", "if quantity >= 12:")
               .replace("    result = 0\n    for price in prices:\n        if price >= 0:\n"
                        "            result += price\n    return result\n",
                        "    return sum(price for price in prices if price >= 0)\n"))
ONEFILE_TESTS = '''from pricing import label


def test_label():
    assert label(1234) == "12.34 EUR"
'''
LOGIC_OLD = '''def bearer_token(headers: dict) -> str:
    """Return the token of an ``Authorization: Bearer <token>`` header.

    Raises PermissionError when the header is missing or is not a bearer token.
    """
    auth = headers.get("Authorization", "")
    if not auth or not auth.startswith("Bearer "):
        raise PermissionError("missing bearer token")
    return auth[len("Bearer "):]
'''


def build_files(root: Path, old: dict[str, str], new: dict[str, str], message: str) -> Path:
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "bench@example.com")
    git(root, "config", "user.name", "Bench")
    git(root, "config", "commit.gpgsign", "false")
    for name, text in old.items():
        (root / name).write_text(text)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add the module")
    git(root, "switch", "-q", "-c", "change")
    for name, text in new.items():
        (root / name).write_text(text)
    git(root, "commit", "-qam", message)
    return root


def build_change(root: Path, change: str) -> Path:
    if change == "onefile":
        return build_files(root, {"pricing.py": ONEFILE_OLD, "test_pricing.py": ONEFILE_TESTS},
                           {"pricing.py": ONEFILE_NEW},
                           "Give the bulk discount from 12 items on and write total as one sum")
    if change == "logic":
        return build_files(root, {"auth.py": LOGIC_OLD},
                           {"auth.py": LOGIC_OLD.replace("if not auth or not", "if not auth and not")},
                           "Change the implementation of bearer_token")
    return build(root, *{"simple": (1, 3), "complex": (10, 8)}[change])  # (files, functions per file)


def naive_layout():
    """The proposals' calls with a self-contained prompt per dimension: a per-call line at the very start, so
    no two calls share a prefix (the layout a naive reviewer builds; measured against the shared prefix).
    A patch of ``proposals.with_task`` for the naive design only: the review itself always shares it."""
    from acode.llm.types import Message
    from acode.review.judging import proposals

    shared = proposals.with_task
    dimension_of = {f"Task: review the change above for {title} only.": name
                    for name, title in proposals.TITLES.items()}

    def naive(messages: list, task: str) -> list:
        out = shared(messages, task)
        dimension = dimension_of.get(task.partition("\n")[0])
        if dimension is None:  # not a per-dimension proposal
            return out
        return [Message.system(f"Review aspect: {dimension}.\n{out[0].content}"), *out[1:]]

    return mock.patch.object(proposals, "with_task", naive)


class CallLog:
    """The model, with each call's prompt tokens (evaluated vs reused from the KV cache) recorded under the
    review step that made it (the step named by the last progress message)."""

    def __init__(self, model) -> None:
        self.inner = model
        self.step = "start"
        self.calls: list[dict] = []

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def complete(self, messages, **kwargs):
        return self._logged("complete", self.inner.complete(messages, **kwargs))

    def score_text(self, prefix: str, text: str, **kwargs):
        return self._logged("score", self.inner.score_text(prefix, text, **kwargs))

    def progress(self, message: str) -> None:
        self.step = next((name for prefix, name in STEPS if message.startswith(prefix)), "other")

    def _logged(self, kind: str, answer):
        usage = answer.usage
        self.calls.append({"step": self.step, "kind": kind, "prompt": usage.prompt_tokens,
                           "evaluated": usage.prompt_tokens_evaluated, "reused": usage.prompt_tokens_reused,
                           "generated": usage.completion_tokens, "seconds": round(usage.seconds, 2)})
        return answer


def run_design(model, repo: Path, design: str, timeout: float) -> dict:
    from acode.config.review import ReviewerSettings
    from acode.review.change.git_context import branch_context
    from acode.review.service import review_change

    diff = design.endswith("+diff")
    name = design.removesuffix("+diff")
    strategy = name if name in ("single_call", "checks_only") else "per_dimension"
    settings = ReviewerSettings(strategy=strategy, timeout_seconds=timeout)
    context = branch_context(repo, "main")
    reset = getattr(getattr(model, "_llm", None), "reset", None)
    if reset:
        reset()  # every design starts with an empty KV cache
    marks: list[tuple[float, str]] = []
    logged = CallLog(model)

    def progress(message: str) -> None:
        marks.append((time.monotonic(), message))
        logged.progress(message)

    started = time.monotonic()
    with naive_layout() if name == "naive" else contextlib.nullcontext():
        result = review_change(context, logged, settings, behaviour=diff, progress=progress)
    ended = time.monotonic()
    changed = sum(f.additions + f.deletions for f in context.files)
    return {
        "design": design, "files": len(context.files), "changed_lines": changed,
        "seconds": round(ended - started, 2), "steps": breakdown(marks, ended), "status": result.status,
        "decision": result.decision.verdict, "calls": result.tokens.calls,
        "prompt_tokens": result.tokens.prompt_tokens, "evaluated": result.tokens.evaluated,
        "reused": result.tokens.reused, "generated": result.tokens.generated,
        "diff_tokens_packed": result.packing.used_tokens, "omitted": len(result.packing.omitted),
        "per_call": logged.calls,
        "behaviour": [{k: f[k] for k in ("function", "status", "seconds", "tried")}
                      | {"found_by": (f["difference"] or {}).get("found_by")}
                      for f in (result.behaviour or {}).get("functions", [])],
        "said": [message[:120] for _, message in marks],
    }


STEPS = (("looking at the project", "project"), ("collecting evidence", "evidence"),
         ("running the old and new", "behaviour"), ("searching", "behaviour"),
         ("asking which behaviour", "question"),
         ("looking around", "look-around"), ("asking for", "proposals"), ("assessing", "proposals"),
         ("checking finding", "checks"), ("comparing old and new", "regression"),
         ("not comparing", "regression"))


def breakdown(marks: list[tuple[float, str]], ended: float) -> dict[str, float]:
    """Seconds per step, from the review's progress messages (each step runs until the next message)."""
    out: dict[str, float] = {}
    for index, (at, message) in enumerate(marks):
        step = next((name for prefix, name in STEPS if message.startswith(prefix)), "other")
        until = marks[index + 1][0] if index + 1 < len(marks) else ended
        out[step] = round(out.get(step, 0.0) + until - at, 2)
    return out


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--designs", default="per_dimension,naive,single_call")
    parser.add_argument("--changes", default="simple,complex")
    parser.add_argument("--context-window", type=int, default=8192)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--repeat", type=int, default=1,
                        help="reviews per design and change (the median is reported)")
    parser.add_argument("--threads", type=int, default=None,
                        help="llama.cpp threads (default: the model's setting)")
    parser.add_argument("--fresh-process", action="store_true",
                        help="time the first review of a new process instead (see the module docstring)")
    parser.add_argument("--src", type=Path, default=REPO / "src",
                        help="the code to time (default: this checkout's)")
    args = parser.parse_args(argv)
    if args.fresh_process:
        from benchmarks.speed.review_first_run import fresh_process_report

        print(json.dumps(fresh_process_report(args.model, args.src.resolve(), args.repeat), indent=2))
        return 0

    from acode.config.model import ModelSettings
    from acode.llm.factory import build_model

    extra = {"threads": args.threads} if args.threads else {}
    model = build_model(ModelSettings(name=args.model, context_window=args.context_window, **extra))
    report: dict = {"benchmark": "review_latency", "model": args.model, "context_window": args.context_window,
                    "targets_seconds": {"simple": 30, "complex": 120, "onefile": 20, "logic": 20},
                    "uptime_before": uptime(), "changes": {}}
    with tempfile.TemporaryDirectory(prefix="acode-review-latency-") as tmp:
        warm = build_change(Path(tmp) / "warm-up", "logic")  # the model's first reading pages its weights in
        run_design(model, warm, "checks_only", args.timeout)
        for change in args.changes.split(","):
            repo = build_change(Path(tmp) / change, change)
            rows = []
            for design in args.designs.split(","):
                runs = []
                for _ in range(args.repeat):
                    runs.append(run_design(model, repo, design, args.timeout))
                    print(json.dumps({"change": change, **runs[-1]}), file=sys.stderr, flush=True)
                row = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]  # the median run
                row = {**row, "runs_seconds": [r["seconds"] for r in runs]}
                rows.append(row)
            base = next((r for r in rows if r["design"] == "naive"), None)
            for row in rows:
                if base and row is not base and base["evaluated"]:
                    row["evaluated_vs_naive"] = round(row["evaluated"] / base["evaluated"], 3)
                    row["seconds_vs_naive"] = (round(row["seconds"] / base["seconds"], 3) if base["seconds"]
                                               else None)
            report["changes"][change] = rows
    report["uptime_after"] = uptime()
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    # --src: the code to time (another checkout's, for before/after), in this process too
    sys.path.insert(0, next((sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == "--src"),
                            str(REPO / "src")))
    raise SystemExit(main())
