"""Validate novel_bugs.jsonl (stdlib only).

Checks the fields and the bug_type counts (8 of each of the 6 HumanEvalPack bug types), then, each in a
fresh subprocess with a timeout: prompt + canonical_solution + test must pass, prompt + buggy_solution + test
must fail (an AssertionError or another exception), and the docstring examples must pass as doctests against
the canonical solution. Prints a JSON summary; exits 1 on any problem.

    python benchmarks/data/check_novel_bugs.py [path/to/novel_bugs.jsonl]
"""

from __future__ import annotations

import collections
import difflib
import json
import subprocess
import sys
from pathlib import Path

DEFAULT = Path(__file__).resolve().parent / "novel_bugs.jsonl"
FIELDS = {"task_id", "prompt", "canonical_solution", "buggy_solution", "bug_type", "entry_point", "test",
          "source"}
BUG_TYPES = ("value misuse", "missing logic", "excess logic", "operator misuse", "variable misuse",
             "function misuse")
PER_TYPE = 8
SOURCE = "written for acode (original)"
TIMEOUT = 20

# Runs in a fresh interpreter: reads {"mode", "code", "entry_point"} on stdin, prints one JSON line.
DRIVER = r"""
import doctest, json, sys
job = json.loads(sys.stdin.read())
ns = {"__name__": "novel_task"}
try:
    exec(compile(job["code"], "<task>", "exec"), ns)
except BaseException as exc:
    print(json.dumps({"ok": False, "error": type(exc).__name__}))
    sys.exit(1)
if job["mode"] == "doctest":
    runner = doctest.DocTestRunner(verbose=False, optionflags=doctest.ELLIPSIS)
    for test in doctest.DocTestFinder().find(ns[job["entry_point"]], job["entry_point"], globs=ns):
        runner.run(test, out=sys.stderr.write)
    print(json.dumps({"ok": runner.failures == 0, "tried": runner.tries, "failed": runner.failures}))
    sys.exit(0 if runner.failures == 0 else 1)
print(json.dumps({"ok": True}))
"""


def run(mode: str, code: str, entry_point: str) -> dict:
    try:
        proc = subprocess.run(
            [sys.executable, "-I", "-c", DRIVER], check=False,
            input=json.dumps({"mode": mode, "code": code, "entry_point": entry_point}),
            capture_output=True, text=True, timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": "timeout"}
    lines = proc.stdout.strip().splitlines()
    try:
        result = json.loads(lines[-1])
    except (IndexError, json.JSONDecodeError):
        result = {"ok": False, "error": "no result", "stderr": proc.stderr[-300:]}
    if mode == "doctest" and not result.get("ok"):
        result["report"] = proc.stderr[-1500:]
    return result


def static_problems(i: int, row: dict) -> list[str]:
    problems = []
    if set(row) != FIELDS:
        return [f"fields {sorted(row)}"]
    if any(not isinstance(row[k], str) for k in FIELDS):
        return ["non-string field"]
    if row["task_id"] != f"Novel/{i}":
        problems.append(f"task_id should be Novel/{i}")
    if row["bug_type"] not in BUG_TYPES:
        problems.append(f"unknown bug_type {row['bug_type']!r}")
    if row["source"] != SOURCE:
        problems.append("source")
    ep = row["entry_point"]
    prompt = row["prompt"]
    if f"def {ep}(" not in prompt or not prompt.endswith('"""\n'):
        problems.append("prompt must define the entry point and end with the docstring")
    examples = sum(1 for line in prompt.splitlines() if line.strip().startswith(">>> "))
    if not 1 <= examples <= 3:
        problems.append(f"{examples} docstring examples (want 1-3)")
    canonical, buggy = row["canonical_solution"], row["buggy_solution"]
    for name, body in (("canonical_solution", canonical), ("buggy_solution", buggy)):
        if not body.endswith("\n") or any(line and not line.startswith("    ") for line in body.splitlines()):
            problems.append(f"{name} must be indented and end with a newline")
        try:
            compile(prompt + body, row["task_id"], "exec")
        except SyntaxError as exc:
            problems.append(f"{name} does not compile: {exc}")
    length = sum(1 for line in canonical.splitlines() if line.strip())
    if not 3 <= length <= 15:
        problems.append(f"canonical_solution has {length} lines (want 3-15)")
    old, new = canonical.splitlines(), buggy.splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if not changes:
        problems.append("buggy_solution equals canonical_solution")
    elif len(changes) > 1 or changes[0][2] - changes[0][1] > 2 or changes[0][4] - changes[0][3] > 2:
        problems.append("buggy_solution must differ from canonical_solution in one place of at most 2 lines")
    test = row["test"]
    asserts = sum(1 for line in test.splitlines() if line.strip().startswith("assert "))
    if ("def check(candidate):" not in test or not test.rstrip().endswith(f"check({ep})")
            or not 3 <= asserts <= 6):
        problems.append(f"test must define check(candidate) with 3-6 asserts and call check({ep})")
    return problems


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    problems: list[str] = []
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, json.JSONDecodeError) as exc:
        print(json.dumps({"file": str(path), "ok": False, "problems": [f"cannot load: {exc}"]}, indent=2))
        return 1
    if len(rows) != len(BUG_TYPES) * PER_TYPE:
        problems.append(f"{len(rows)} rows (want {len(BUG_TYPES) * PER_TYPE})")
    counts = collections.Counter(r.get("bug_type") for r in rows)
    for bug_type in BUG_TYPES:
        if counts[bug_type] != PER_TYPE:
            problems.append(f"{counts[bug_type]} rows of {bug_type!r} (want {PER_TYPE})")
    entry_points = collections.Counter(r.get("entry_point") for r in rows)
    problems += [f"entry_point {ep!r} used {n} times" for ep, n in entry_points.items() if n > 1]

    canonical_pass = buggy_fail = doctest_tried = doctest_failed = 0
    failure_kinds: collections.Counter[str] = collections.Counter()
    for i, row in enumerate(rows):
        row_problems = static_problems(i, row)
        if row_problems and row_problems[0].startswith(("fields", "non-string")):
            problems += [f"line {i + 1}: {p}" for p in row_problems]
            continue
        tid, ep = row["task_id"], row["entry_point"]
        good = run("test", row["prompt"] + row["canonical_solution"] + "\n\n" + row["test"], ep)
        if good["ok"]:
            canonical_pass += 1
        else:
            row_problems.append(f"canonical fails its test ({good.get('error')})")
        bad = run("test", row["prompt"] + row["buggy_solution"] + "\n\n" + row["test"], ep)
        if bad["ok"]:
            row_problems.append("buggy passes its test")
        elif bad.get("error") in ("timeout", "no result"):
            row_problems.append(f"buggy run did not finish properly ({bad.get('error')})")
        else:
            buggy_fail += 1
            failure_kinds[bad["error"]] += 1
        doc = run("doctest", row["prompt"] + row["canonical_solution"], ep)
        doctest_tried += doc.get("tried", 0)
        doctest_failed += doc.get("failed", 0)
        if not doc["ok"]:
            row_problems.append(f"doctest failure: {doc.get('error') or doc.get('report', '')[-400:]}")
        problems += [f"{tid} ({ep}): {p}" for p in row_problems]

    summary = {
        "file": str(path),
        "rows": len(rows),
        "bug_types": {t: counts[t] for t in BUG_TYPES},
        "canonical_pass": canonical_pass,
        "buggy_fail": buggy_fail,
        "buggy_failure_kinds": dict(sorted(failure_kinds.items())),
        "doctest_examples": doctest_tried,
        "doctest_failures": doctest_failed,
        "problems": problems,
        "ok": not problems,
    }
    print(json.dumps(summary, indent=2))
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
