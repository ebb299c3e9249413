"""Does the agent fix real bugs of real projects better than one model call? Tasks from the real-commit
set's bug fixes (benchmarks/tasks/fix_project_tasks.py): the project before the fix with the fix's tests, the
task naming only the failing tests. Each task is solved, on the same model file, by:

  (acode)   `acode -p "These tests fail: <node ids>. Fix the bug in the code (not the tests) so they
            pass (run them with: <python> -m pytest -q <node ids>)" --approval-mode yolo --json`, with the
            project's environment activated (its bin first on PATH);
  (oneshot) the same model asked once, greedy, no tools: the task, the failing output and the module the
            test file is named after (else the traceback's deepest project frame), "reply with the whole
            corrected file".

Success (both arms): with the test files put back as the task gave them, the failing tests pass, every
test of their files that passes on the fixed tree passes, and no test of the project's whole suite that
passed before the arm ran fails after it (a "fix" that breaks another module's tests is "other tests
broken"; the suite runs once before and once after each arm). Tasks are split by a hash of their name into a
tune half and a report half (--half). Prints one JSON document; per-task records go to --records (JSONL)
and --resume skips the tasks already there.

    python benchmarks/fix/fix_project.py --half tune [--limit 5] [--model qwen2.5-coder-1.5b]
        [--arms acode,oneshot] [--projects click,sqlparse] [--tasks "idna 3.7->3.8"]
        [--set agent.fix.max_attempts=6] [--timeout 420]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.fix import fix_report
from benchmarks.harness.grading import PASSED, broken_tests
from benchmarks.harness.grouped import run_grouped
from benchmarks.tasks import fix_project_tasks as fpt
from benchmarks.tasks import real_commits_set as rcs

ONESHOT = ("{prompt}\n\n`{command}` prints:\n```\n{output}\n```\n\n{module}\n```python\n{source}```\n\n"
           "Reply with the whole corrected {module} in one ```python block.")
FENCE = re.compile(r"```[\w]*\n(.*?)```", re.DOTALL)


def changed_source(root: Path) -> list[str]:
    out = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    return [line[3:] for line in out.splitlines() if not rcs.is_test(line[3:])]


def classify(task: fpt.ProjectTask, root: Path, python: Path, stop: str, edited: bool) -> tuple[str, dict]:
    """The outcome, with the test files as the task gave them (an agent may not pass by editing them)."""
    subprocess.run(["git", "checkout", "-q", "HEAD", "--", *task.test_files], cwd=root, check=True)
    grade = fpt.solved(task, python, root)
    detail = {"flipped_passing": sum(o == PASSED for o in grade.fail_to_pass.values()),
              "flipped": len(grade.fail_to_pass), "changed": changed_source(root)}
    if grade.resolved:
        return "solved", detail
    if stop in ("timeout", "max_turns", "limit"):
        return "limit", detail
    if not detail["changed"]:  # acode puts the files back when no candidate passed
        return "tests still fail (restored)" if edited else "no edit", detail
    if detail["flipped_passing"] == len(task.flipped):
        return "other tests broken", detail
    return "tests still fail", detail


def run_acode(task, root, python, args, overrides, traces: Path | None) -> dict:
    trace = traces / f"{rcs.slug(fpt.fix_by_name(task.name))}.json" if traces else None
    record = fix_report.run_acode(task.prompt(python), root, args.model, args.timeout, overrides,
                                  path_first=python.parent, trace=trace)
    outcome, detail = classify(task, root, python, record["stop"], record["edited"])
    return {**record, **detail, "outcome": outcome}


def run_oneshot(task: fpt.ProjectTask, root: Path, python: Path, model, timeout: float) -> dict:
    from acode.errors import ModelError
    from acode.llm.types import Message

    if not task.module or Path(task.module).is_absolute():
        return {**fix_report.oneshot_record(0.0, False, None, "no module"), "model_calls": 0}
    started, cpu_started = time.monotonic(), fix_report.cpu_seconds()
    source = (root / task.module).read_text(encoding="utf-8")
    command = f"{python} -m pytest -q {task.ids}"
    prompt = ONESHOT.format(prompt=task.prompt(python), command=command, output=task.failing_output.strip(),
                            module=task.module, source=source)
    try:
        completion = model.complete([Message.user(prompt)], max_tokens=model.count_tokens(source) + 512,
                                    temperature=0.0, seed=0, timeout=timeout)
    except ModelError as exc:  # too long for the context window, or past the timeout: the call failed
        record = fix_report.oneshot_record(time.monotonic() - started, False, None, "model error")
        return {**record, "error": str(exc)[:300]}
    cpu_s = fix_report.cpu_seconds() - cpu_started  # the call, not the check below (as acode's run)
    blocks = FENCE.findall(completion.text)
    if blocks:
        (root / task.module).write_text(max(blocks, key=len), encoding="utf-8")
    outcome, detail = classify(task, root, python, "answer", bool(blocks))
    record = fix_report.oneshot_record(time.monotonic() - started, bool(blocks), completion.usage, outcome,
                                       cpu_s)
    return {**record, **detail}


SUITE_SECONDS = 900


def suite_regressions(before: dict[str, str], root: Path, python: Path) -> dict:
    """The tests of the whole suite that passed before the arm ran and do not pass after it."""
    after, output = fpt.run_tests(python, root, [], timeout=SUITE_SECONDS)
    if output.startswith("timed out"):
        return {"suite": "timed out"}
    broken = broken_tests(before, after)
    return {"suite_passed": sum(o == PASSED for o in after.values()), "suite_broken": len(broken),
            "suite_regressions": broken[:20]}


def with_suite_check(record: dict, before: dict[str, str], root: Path, python: Path) -> dict:
    check = suite_regressions(before, root, python)
    if record.get("outcome") == "solved" and check.get("suite_broken"):
        record = {**record, "outcome": "other tests broken"}
    return {**record, **check}


def changed_definitions(fix: rcs.Fix) -> list[tuple[str, str]]:
    """(file, qualified name of the innermost definition) of each line the fix changes in the source
    (module level: ``<module>``): where the real fix is, to compare with where acode looks."""
    import ast
    import difflib

    found: list[tuple[str, str]] = []
    for path in fix.source_paths():
        old, new = fix.changes[path]
        if not path.endswith(".py") or old is None:
            continue
        spans: list[tuple[int, int, str]] = []

        def walk(node: ast.AST, prefix: str, spans: list[tuple[int, int, str]] = spans) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    name = f"{prefix}{child.name}"
                    spans.append((child.lineno, child.end_lineno or child.lineno, name))
                    inner = "<locals>." if not isinstance(child, ast.ClassDef) else ""
                    walk(child, f"{name}.{inner}")
                else:
                    walk(child, prefix)

        try:
            walk(ast.parse(old), "")
        except SyntaxError:
            continue
        matcher = difflib.SequenceMatcher(None, old.splitlines(), (new or "").splitlines(), autojunk=False)
        for tag, i1, i2, _, _ in matcher.get_opcodes():
            for line in range(i1 + 1, max(i2, i1 + 1) + 1) if tag != "equal" else ():
                inside = [s for s in spans if s[0] <= line <= s[1]]
                name = max(inside, key=lambda s: s[0])[2] if inside else "<module>"
                if (path, name) not in found:
                    found.append((path, name))
    return found


def locate_only(task: fpt.ProjectTask, root: Path, python: Path) -> dict:
    """What acode's fixer would choose to rewrite and show for this task (no model call): its targets, how
    much of each the prompt shows, whether they include a file the real fix changed, and where the
    functions the fix changed rank among the test spectrum's suspects
    (acode.agent.fixing.localise.spectrum)."""
    from acode.agent.fixing.detect import plan_fix
    from acode.agent.fixing.localise.files_run import files_run
    from acode.agent.fixing.localise.targets import choose_targets, spec_views
    from acode.agent.fixing.outcome import read_outcome
    from acode.agent.fixing.suspect_ask import suspect_asks
    from acode.config.agent import FixConfig

    def shell(command: str, timeout: float = 300.0, _description: str = "") -> tuple:
        started = time.monotonic()
        try:
            done = run_grouped(command, shell=True, cwd=root, stdin=subprocess.DEVNULL,  # a test may read it
                               timeout=timeout)
            output = f"{done.stdout}{done.stderr}\n[exit code: {done.returncode}]"
        except subprocess.TimeoutExpired:
            output = f"[still running after {timeout:.0f} s]"
        return read_outcome(output), time.monotonic() - started

    settings = FixConfig()
    plan = plan_fix(task.prompt(python), root)
    if plan is None:
        return {"plan": None}
    before, _ = shell(plan.test_command)
    started = time.monotonic()
    # the fixer's own first run of the files (no neighbours check: only the recorded run)
    _, ranked = files_run(shell, plan, before, root, 150.0, check_neighbours=False, spectrum=True,
                          time_factor=1.0)
    seconds = time.monotonic() - started
    chosen = {key: choose_targets(plan, before, root, max_lines=settings.max_file_lines,
                                  excerpt_lines=settings.excerpt_file_lines,
                                  excerpt_chars=settings.excerpt_file_chars, suspects=found)
              for key, found in (("targets", ranked), ("without_spectrum", []))}
    targets = chosen["targets"]
    fix = fpt.fix_by_name(task.name)
    fixed = fix.source_paths()
    changed = changed_definitions(fix)

    def is_changed(s) -> bool:
        return any(s.path.as_posix() == p and (s.name == n or s.name.startswith(n + ".")) for p, n in changed)

    rank = next((i + 1 for i, s in enumerate(ranked) if is_changed(s)), None)

    def shown(pairs: list[tuple[str, str]]) -> list[str]:
        """The changed definitions (not module-level lines) the prompts (path, shown text) show in full."""
        def defined(name: str, text: str) -> bool:
            pattern = rf"^\s*(async def|def|class) {re.escape(name.split('.')[-1])}\b"
            return name != "<module>" and re.search(pattern, text, re.MULTILINE) is not None

        return [f"{p}:{n}" for path, text in pairs for p, n in changed if p == path and defined(n, text)]

    def prompts(chosen_targets) -> list[tuple[str, str]]:
        return [(t.whole.path, t.shown.text) for t in chosen_targets]

    asks = suspect_asks(ranked, root, settings.suspect_asks)
    return {"command": plan.test_command, "fixed_files": fixed, "fixed_definitions": changed,
            "targets": [{"path": t.whole.path, "lines": len(t.whole.text.splitlines()),
                         "shown_chars": len(t.shown.text), "excerpt": t.shown is not t.whole}
                        for t in targets],
            "found_fixed_file": any(t.whole.path in fixed for t in targets),
            "shown_fixed": shown(prompts(targets)),
            "asked_fixed": shown([(a.view.path, a.shown.text) for a in asks]),
            "asked": [f"{a.view.path}:{a.name} ({len(a.shown.text)} chars)" for a in asks],
            "without_spectrum": [t.whole.path for t in chosen["without_spectrum"]],
            "shown_fixed_without_spectrum": shown(prompts(chosen["without_spectrum"])),
            "spec_chars": sum(len(v.text) for v in spec_views(plan, before, root, targets)),
            "spectrum_seconds": round(seconds, 1), "suspects": len(ranked), "fixed_rank": rank,
            "top_suspects": [f"{s.path}:{s.name} {s.score:.2f} ({s.failing}/{s.passing})"
                             for s in ranked[:8]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--half", choices=["tune", "report", "all"], default="tune")
    parser.add_argument("--projects", default="", help="comma-separated projects (default: all of the set)")
    parser.add_argument("--tasks", default="",
                        help='comma-separated task names ("idna 3.7->3.8"; default: every task of the half)')
    parser.add_argument("--locate", action="store_true",
                        help="no model: print which files acode's fixer would rewrite for each task")
    parser.add_argument("--traces", type=Path, default=None, help="a folder for acode's --json results")
    fix_report.add_run_arguments(parser)
    args = parser.parse_args()

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    projects = {p for p in args.projects.split(",") if p} or None
    tasks = [t for which in rcs.RELEASE_SETS for t in fpt.load_tasks(which, projects)[0]]
    # in the order of their name's hash: --limit N is a sample across the projects, not the first project
    names = {n.strip() for n in args.tasks.split(",") if n.strip()}
    tasks = sorted((t for t in tasks if args.half in ("all", t.half) and (not names or t.name in names)),
                   key=lambda t: hashlib.sha256(t.name.encode()).hexdigest())
    tasks = tasks[: args.limit] if args.limit else tasks
    threads = fix_report.arm_threads(args.threads)
    overrides = fix_report.settings_env(args.set, args.model_timeout, threads)
    # acode stops itself (and reports what it did) shortly before the benchmark would kill it
    overrides.setdefault("ACODE_AGENT__MAX_SECONDS", str(max(60.0, args.timeout - 30)))
    records = fix_report.load_records(args.records, args.resume)
    if args.traces:
        args.traces.mkdir(parents=True, exist_ok=True)
    if args.locate:
        arms = ["locate"]
    model = fix_report.oneshot_model(arms, args.model, threads)
    work = Path(tempfile.mkdtemp(prefix="acode-fix-project-"))

    def run_arm(task: fpt.ProjectTask, arm: str) -> dict:
        fix = fpt.fix_by_name(task.name)
        place = work / f"{rcs.slug(fix)}-{arm}"
        root = fpt.build_repo(fix, place)
        python = fpt.project_python(root, rcs.test_env(task.env), place.with_name(place.name + "-venv"))
        if arm == "locate":
            return locate_only(task, root, python)
        before, _ = fpt.run_tests(python, root, [], timeout=SUITE_SECONDS)
        if arm == "acode":
            record = run_acode(task, root, python, args, overrides, args.traces)
        else:
            record = run_oneshot(task, root, python, model, args.timeout)
        return with_suite_check(record, before, root, python)

    try:
        fix_report.run_tasks(tasks, arms, records, None if args.locate else args.records,
                             task_id=lambda task: task.name, run_arm=run_arm,
                             fields=lambda task: {"half": task.half, "failing": task.failing,
                                                  "module": task.module})
    finally:  # the tasks' repositories and environments: gigabytes over a run
        shutil.rmtree(work, ignore_errors=True)
    if args.locate:
        print(json.dumps([{"task": r["task_id"], **r["locate"]} for r in records], indent=1))
        return
    report = {"model": args.model, "half": args.half, "tasks": len(records), "settings": args.set,
              "threads": threads,
              "timeout_s": args.timeout, **fix_report.compare(records, arms),
              "rows": [{"task": r["task_id"], **{arm: [r[arm]["outcome"], r[arm]["seconds"]]
                                                for arm in arms if arm in r}} for r in records]}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
