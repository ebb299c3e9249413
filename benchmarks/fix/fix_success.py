"""Does the agent fix real bugs better than one model call? HumanEvalFix-style tasks
(benchmarks/tasks/fix_tasks.py), each solved in one run on the same model file by:

  (a) acode:    `acode -p "<the README's way of asking>" --approval-mode yolo --json`, default settings,
                in a fresh git repository holding the buggy file and its visible test file;
  (loop)        the same `acode -p` with test-driven fixing off (agent.fix.enabled=false): the tool loop
                alone, as acode was before it (opt-in arm: --arms acode,loop,oneshot);
  (b) one-shot: the same model asked once, greedy, no tools, with the file and the failing test output:
                "reply with the whole corrected file".

Success is decided by the hidden test (the task's full `test`), never shown to either. Tune on the even
task ids (--half even), report the odd ones (--half odd). Prints one JSON document; per-task records go
to --records (JSONL), so an interrupted run can --resume.

    python benchmarks/fix/fix_success.py --half odd [--limit 40] [--model qwen2.5-coder-1.5b]
        [--arms acode,oneshot] [--set agent.fix.max_attempts=6] [--timeout 420]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.fix import fix_report
from benchmarks.tasks.fix_tasks import FixTask, hidden_check, load_tasks, make_workspace, visible_check

ONESHOT = ("{prompt}\n\n{module}\n```python\n{source}```\n\n{test_file}\n```python\n{test}```\n\n"
           "`python -m pytest -q` prints:\n```\n{output}\n```\n\nReply with the whole corrected {module} in "
           "one ```python block.")
FENCE = re.compile(r"```[\w]*\n(.*?)```", re.DOTALL)


def classify(task: FixTask, root: Path, edited: bool, stop: str) -> str:
    if hidden_check(task, root):
        return "solved"
    if stop in ("timeout", "max_turns", "limit"):
        return "limit"
    if not edited:
        return "no edit"
    try:
        compile((root / task.module).read_text(), task.module, "exec")
    except SyntaxError:
        return "broken edit"
    return "hidden tests fail" if visible_check(root)[0] else "tests still fail"


def run_acode(task: FixTask, root: Path, model: str, timeout: float, overrides: dict[str, str]) -> dict:
    record = fix_report.run_acode(task.prompt, root, model, timeout, overrides)
    return {**record, "outcome": classify(task, root, record["edited"], record["stop"])}


def oneshot_prompt(task: FixTask, output: str) -> str:
    """The one call's prompt, given what `python -m pytest -q` printed; acode's first call is these bytes.
    The run's noise (durations, addresses) is taken out as acode does: the same failure, the same prompt."""
    from acode.agent.fixing.outcome import trim_output

    return ONESHOT.format(prompt=task.prompt, module=task.module, source=task.source,
                          test_file=task.test_file, test=task.visible_test,
                          output=trim_output(output.strip()))


def run_oneshot(task: FixTask, root: Path, model) -> dict:
    from acode.llm.types import Message

    started, cpu_started = time.monotonic(), fix_report.cpu_seconds()
    prompt = oneshot_prompt(task, visible_check(root)[1])
    completion = model.complete([Message.user(prompt)], max_tokens=1536, temperature=0.0, seed=0)
    blocks = FENCE.findall(completion.text)
    edited = bool(blocks)
    if blocks:
        (root / task.module).write_text(max(blocks, key=len))
    seconds, cpu_s = time.monotonic() - started, fix_report.cpu_seconds() - cpu_started
    outcome = classify(task, root, edited, "answer")
    return fix_report.oneshot_record(seconds, edited, completion.usage, outcome, cpu_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=["even", "odd", "all"], default="odd")
    parser.add_argument("--tasks", choices=["humanevalfix", "novel"], default="humanevalfix",
                        help="novel: benchmarks/data/novel_bugs.jsonl, never used to tune the fixer")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N tasks of the half")
    parser.add_argument("--data", type=Path, default=None, help="the HumanEvalPack JSONL (humanevalfix; "
                        "default ../shared/data/humanevalpack-python.jsonl beside the checkout)")
    fix_report.add_run_arguments(parser)
    args = parser.parse_args()

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    threads = fix_report.arm_threads(args.threads)
    overrides = fix_report.settings_env(args.set, args.model_timeout, threads)
    data = {"path": args.data} if args.data else {}
    tasks = load_tasks(**data, half=args.half, task_set=args.tasks)[args.skip:]
    tasks = tasks[: args.limit] if args.limit else tasks
    records = fix_report.load_records(args.records, args.resume)
    model = fix_report.oneshot_model(arms, args.model, threads)
    work = Path(tempfile.mkdtemp(prefix="acode-fix-bench-"))

    def run_arm(task: FixTask, arm: str) -> dict:
        root = make_workspace(task, work / f"{task.number}-{arm}")
        if arm == "acode":
            return run_acode(task, root, args.model, args.timeout, overrides)
        if arm == "loop":  # the tool loop alone: acode before test-driven fixing
            loop_only = {**overrides, "ACODE_AGENT__FIX__ENABLED": "false"}
            return run_acode(task, root, args.model, args.timeout, loop_only)
        return run_oneshot(task, root, model)

    fix_report.run_tasks(tasks, arms, records, args.records, task_id=lambda task: task.task_id,
                         run_arm=run_arm)
    report = {"model": args.model, "tasks_set": args.tasks, "half": args.half, "tasks": len(records),
              "settings": args.set, "threads": threads,
              "timeout_s": args.timeout, "model_timeout_s": args.model_timeout or None,
              **fix_report.compare(records, arms)}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
