"""What the model has in it (issue 51): pass@k by candidate shape on the tune half, the hidden tests
deciding, and what each candidate costs.

For each task (benchmarks/tasks/fix_tasks.py, default the unseen Novel set's tune half, even ids): the one
call (the benchmark's prompt byte for byte, greedy: acode's first call), then
  - function: the same prompt but for its last sentence, asking for only the function the test reaches
    (acode's agent.fix.function_asks: fix_function.j2), greedy, then samples at 0.4 / 0.8 (seeds 301..),
    stopped at the function's end (function_asks.FUNCTION_STOP), merged back by name (rewrite.parse_reply);
  - whole: the one call's prompt sampled at 0.4 / 0.8 (seeds 1..), stopped at the block's end.
Each candidate's visible test run is timed as acode would run it; the hidden check decides. The unchanged
file and a candidate already seen are dropped before any test runs (counted, no test time).
pass@k: tasks solved by the one call plus the first k-1 candidates of a shape; "within 2x": those whose
model and test seconds, counted from the one call's start, end within 2x the one call's seconds.

    flock /tmp/acode-model.lock python benchmarks/fix/fix_candidates.py --model qwen2.5-coder-0.5b --limit 10
        [--half even] [--functions 4] [--wholes 2] [--records FILE --resume]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.fix import fix_report
from benchmarks.fix.fix_success import oneshot_prompt
from benchmarks.tasks.fix_tasks import FixTask, hidden_check, load_tasks, make_workspace, visible_check

TEMPERATURES = (0.4, 0.8)
LINE_TEMPERATURE = 0.7  # agent.fix.sample_temperature, the line asks' samples in acode
BUDGET = 2.0


def function_prompt(one_call: str, task: FixTask) -> str:
    """The one call's prompt but for its last sentence, as acode's fix_function.j2 writes it."""
    from acode.prompts import render

    head = one_call[: one_call.rindex("\n\n") + 2]
    return head + render("acode.agent", "fix_function.j2", function=(task.module, task.entry_point))


def line_prompt(one_call: str, task: FixTask) -> str:
    """The one call's prompt but for its last sentence, asking for the one wrong line (fix_line.j2)."""
    from acode.prompts import render

    head = one_call[: one_call.rindex("\n\n") + 2]
    return head + render("acode.agent", "fix_line.j2", files=[_view(task)])


def candidate(task: FixTask, shape: str, reply: str) -> dict[str, str] | str:
    from acode.agent.fixing.line_edit import apply_line_edit, copies_instruction
    from acode.agent.fixing.rewrite import close_fence, parse_reply

    if shape == "line":
        if copies_instruction(reply):
            return "copies the instruction"
        return apply_line_edit(reply, [_view(task)])
    return parse_reply(close_fence(reply), [_view(task)])


def judge(task: FixTask, root: Path, text: str) -> tuple[bool, bool, float]:
    """(visible tests pass, hidden check passes, the visible run's seconds), the file put back after."""
    (root / task.module).write_text(text)
    started = time.monotonic()
    visible = visible_check(root)[0]
    seconds = time.monotonic() - started
    hidden = hidden_check(task, root)
    (root / task.module).write_text(task.source)
    return visible, hidden, seconds


def run_task(task: FixTask, model, work: Path, functions: int, wholes: int, lines: int,
             previous: dict | None = None) -> dict:
    """Every candidate of the task in a fixed order; with ``previous`` (a record without line asks) only
    the line asks, added to its rows."""
    from acode.agent.fixing.function_asks import FUNCTION_STOP
    from acode.agent.fixing.line_edit import LINE_REPLY_TOKENS, LINE_STOP
    from acode.agent.fixing.rewrite import reply_stop
    from acode.llm.types import Message

    root = make_workspace(task, work / str(task.number))
    one_call = oneshot_prompt(task, visible_check(root)[1])
    whole_stop = reply_stop([_view(task)], False)
    asks = [] if previous else [("one call", one_call, 0.0, 0, whole_stop, 1536)]
    if not previous:
        asks += [("function", function_prompt(one_call, task), 0.0 if i == 0 else TEMPERATURES[(i - 1) % 2],
                  301 + i, FUNCTION_STOP, 1024) for i in range(functions)]
        asks += [("whole", one_call, TEMPERATURES[i % 2], 1 + i, whole_stop, 1536) for i in range(wholes)]
    asks += [("line", line_prompt(one_call, task), 0.0 if i == 0 else LINE_TEMPERATURE, 100 + i, LINE_STOP,
              LINE_REPLY_TOKENS) for i in range(lines)]
    seen: dict[str, dict] = {}
    rows = list(previous["candidates"]) if previous else []
    if previous:  # in acode the line asks follow the one call, whose prompt the KV cache then holds
        model.complete([Message.user(one_call)], max_tokens=1, temperature=0.0, seed=0)
    for shape, prompt, temperature, seed, stop, max_tokens in asks:
        started = time.monotonic()
        done = model.complete([Message.user(prompt)], max_tokens=max_tokens, temperature=temperature,
                              seed=seed, stop=stop)
        seconds = time.monotonic() - started
        parsed = candidate(task, shape, done.text)
        row = {"shape": shape, "temperature": temperature, "seed": seed, "model_s": round(seconds, 2),
               "completion_tokens": done.usage.completion_tokens, "prompt_tokens": done.usage.prompt_tokens,
               "prompt_tokens_evaluated": done.usage.prompt_tokens_evaluated}
        text = None if isinstance(parsed, str) else parsed[task.module]
        first = seen.get(text) if text else None
        if text is None or (first and first["shape"] in ("one call", shape)):
            row["dropped"] = parsed[:60] if text is None else "repeat"
            row["test_s"], row["visible"], row["hidden"] = 0.0, False, False
        elif first:  # another shape's candidate: new to this shape alone, which pass_at_k simulates
            row.update(same_as=first["shape"], visible=first["visible"], hidden=first["hidden"],
                       test_s=first["test_s"])
        else:
            seen[text] = row
            row["visible"], row["hidden"], test_s = judge(task, root, text)
            row["test_s"] = round(test_s, 2)
        rows.append(row)
    return {"task": task.task_id, "one_call_s": rows[0]["model_s"], "candidates": rows}


def _view(task: FixTask):
    from acode.agent.fixing.file_view import FileView

    return FileView(task.module, task.source)


def pass_at_k(records: list[dict], shape: str, k: int, budget: float | None, oracle: bool = False) -> int:
    """Tasks the one call and the first k-1 candidates of ``shape`` solve (the visible tests choosing:
    the first candidate that passes them is the answer, the hidden check decides it), within ``budget``
    times the one call's seconds when given. ``oracle``: any of them passes the hidden check (what the
    model has in it, whatever chooses)."""
    solved = 0
    for record in records:
        first, *rest = record["candidates"]
        chosen = [first, *[c for c in rest if c["shape"] == shape][: k - 1]]
        limit = budget * record["one_call_s"] if budget else float("inf")
        clock = 0.0
        for row in chosen:
            clock += row["model_s"] + row["test_s"]
            if clock > limit and row is not first:
                break
            if oracle and row["hidden"]:
                solved += 1
                break
            if not oracle and row["visible"]:
                solved += row["hidden"]
                break
    return solved


def _with(records: list[dict], shape: str) -> list[dict]:
    """The records that hold candidates of ``shape`` (line asks were added to the first tasks only)."""
    return [r for r in records if any(c["shape"] == shape for c in r["candidates"])]


def _table(records: list[dict], shapes: list[str], ks: range, budget: float | None,
           oracle: bool = False) -> dict:
    return {shape: {str(k): pass_at_k(_with(records, shape), shape, k, budget, oracle) for k in ks}
            for shape in shapes}


def per_candidate(records: list[dict], shape: str) -> dict:
    rows = [c for r in records for c in r["candidates"] if c["shape"] == shape]
    if not rows:
        return {}
    return {"n": len(rows),
            "completion_tokens_median": statistics.median(c["completion_tokens"] for c in rows),
            "model_s_median": round(statistics.median(c["model_s"] for c in rows), 1),
            "test_s_median": round(statistics.median(c["test_s"] for c in rows), 1),
            "dropped": sum("dropped" in c for c in rows),
            "hidden_passes": sum(c["hidden"] for c in rows)}


def sizes(tasks: list[FixTask], model_name: str) -> dict:
    """No model run, its tokenizer only: the tokens of the whole file against those of the function the
    test reaches (what a faithful reply of each shape copies back), per task set."""
    import ast

    from acode.config.model import ModelSettings
    from acode.llm.lazy import LazyEmbeddedModel

    model = LazyEmbeddedModel(ModelSettings(backend="embedded", name=model_name), say=lambda _: None)
    rows = []
    for task in tasks:
        tree = ast.parse(task.source)
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
        entry = next(n for n in functions if n.name == task.entry_point)
        function = "\n".join(task.source.splitlines()[entry.lineno - 1 : entry.end_lineno]) + "\n"
        rows.append((model.count_tokens(task.source), model.count_tokens(function), len(functions)))
    return {"tasks": len(rows), "file_tokens_median": statistics.median(r[0] for r in rows),
            "function_tokens_median": statistics.median(r[1] for r in rows),
            "function_over_file_median": round(statistics.median(r[1] / r[0] for r in rows), 3),
            "tasks_with_more_than_one_function": sum(r[2] > 1 for r in rows),
            "tasks_where_the_function_is_at_most_half": sum(r[1] <= r[0] / 2 for r in rows),
            "model_loaded": model.loaded}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--tasks", choices=["humanevalfix", "novel"], default="novel")
    parser.add_argument("--half", choices=["even", "odd", "all"], default="even")
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--functions", type=int, default=4)
    parser.add_argument("--wholes", type=int, default=2)
    parser.add_argument("--lines", type=int, default=0,
                        help="one-line asks (greedy, then samples); with --resume added to recorded tasks")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--records", type=Path, default=None)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--sizes", action="store_true",
                        help="no model run: whole file against function tokens of every task of the half")
    parser.add_argument("--data", type=Path, default=None, help="the HumanEvalPack JSONL (humanevalfix)")
    args = parser.parse_args()

    data = {"path": args.data} if args.data else {}
    if args.sizes:
        print(json.dumps({"model_tokenizer": args.model, "tasks_set": args.tasks, "half": args.half,
                          **sizes(load_tasks(**data, half=args.half, task_set=args.tasks), args.model)}))
        return
    tasks = load_tasks(**data, half=args.half, task_set=args.tasks)[: args.limit]
    done = {}
    if args.resume and args.records and args.records.exists():
        done = {r["task"]: r for r in map(json.loads, args.records.read_text().splitlines())}
    threads = fix_report.arm_threads(args.threads)
    model = None  # loaded only when a task is not in the records yet: a resumed report needs no model
    work = Path(tempfile.mkdtemp(prefix="acode-fix-candidates-"))
    records = []
    for task in tasks:
        record = done.get(task.task_id)
        adds_lines = bool(record and args.lines and not _with([record], "line"))  # recorded before them
        if record is None or adds_lines:
            model = model or fix_report.oneshot_model(["oneshot"], args.model, threads)
            record = run_task(task, model, work, args.functions, args.wholes, args.lines,
                              record if adds_lines else None)
            if args.records:
                with args.records.open("a") as out:
                    out.write(json.dumps(record) + "\n")
        records.append(record)
        print(json.dumps({"task": task.task_id, "solved_by": [c["shape"] for c in record["candidates"]
                                                              if c["hidden"]]}), file=sys.stderr)
    one_call = statistics.median(r["one_call_s"] for r in records)
    ks = range(1, max(args.functions, args.wholes, args.lines) + 2)
    shapes = [shape for shape in ("function", "whole", "line")
              if any(c["shape"] == shape for r in records for c in r["candidates"])]
    report = {
        "model": args.model, "tasks_set": args.tasks, "half": args.half, "tasks": len(records),
        "threads": threads, "one_call_median_s": round(one_call, 1),
        "tasks_per_shape": {shape: len(_with(records, shape)) for shape in shapes},
        "pass_at_k": _table(records, shapes, ks, None),
        "pass_within_2x": _table(records, shapes, ks, BUDGET),
        "any_passes_at_k": _table(records, shapes, ks, None, oracle=True),
        "any_passes_within_2x": _table(records, shapes, ks, BUDGET, oracle=True),
        "per_candidate": {shape: per_candidate(records, shape)
                          for shape in ("one call", *shapes)},
        "per_task": {r["task"]: [(c["shape"], c["temperature"], c["hidden"], c.get("dropped", ""))
                                 for c in r["candidates"]] for r in records},
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
