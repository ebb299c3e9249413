"""Validate security_pairs.jsonl: fields, ids, one change of a few lines per pair, and in a fresh
subprocess each: prompt + canonical_solution + test must pass. Whether the vulnerable version fails the
same test is reported, not required (a timing leak or a disabled certificate check passes a unit test).
Prints a JSON summary; exits 1 on any problem.

    python benchmarks/data/check_security_pairs.py [path/to/security_pairs.jsonl]
"""

from __future__ import annotations

import collections
import difflib
import json
import sys
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.data.check_novel_bugs import FIELDS, SOURCE, run

DEFAULT = Path(__file__).resolve().parent / "security_pairs.jsonl"
MAX_CHANGED_LINES = 12


def problems_of(i: int, row: dict) -> list[str]:
    if set(row) != FIELDS:
        return [f"fields {sorted(row)}"]
    problems = []
    if row["task_id"] != f"Security/{i}":
        problems.append(f"task_id should be Security/{i}")
    if not row["bug_type"].startswith("CWE-") or row["source"] != SOURCE:
        problems.append("bug_type must name a CWE; source must be the project's")
    if f"def {row['entry_point']}(" not in row["prompt"] or not row["prompt"].endswith('"""\n'):
        problems.append("prompt must define the entry point and end with the docstring")
    old, new = row["canonical_solution"].splitlines(), row["buggy_solution"].splitlines()
    changes = [op for op in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
               if op[0] != "equal"]
    if not changes or len(changes) > 1 or max(changes[0][2] - changes[0][1],
                                              changes[0][4] - changes[0][3]) > MAX_CHANGED_LINES:
        problems.append(f"the two versions must differ in one place of at most {MAX_CHANGED_LINES} lines")
    return problems


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    problems: list[str] = []
    vulnerable_fails = []
    for i, row in enumerate(rows):
        found = problems_of(i, row)
        if not found or not found[0].startswith("fields"):
            good = run("test", row["prompt"] + row["canonical_solution"] + "\n\n" + row["test"],
                       row["entry_point"])
            if not good["ok"]:
                found.append(f"canonical fails its test ({good.get('error')})")
            bad = run("test", row["prompt"] + row["buggy_solution"] + "\n\n" + row["test"],
                      row["entry_point"])
            if not bad["ok"]:
                vulnerable_fails.append(row["task_id"])
        problems += [f"{row.get('task_id', i)}: {p}" for p in found]
    entry_points = collections.Counter(r.get("entry_point") for r in rows)
    problems += [f"entry_point {ep!r} used {n} times" for ep, n in entry_points.items() if n > 1]
    print(json.dumps({"file": str(path), "pairs": len(rows), "ok": not problems, "problems": problems,
                      "cwe": dict(collections.Counter(r["bug_type"] for r in rows)),
                      "vulnerable_version_fails_its_test": len(vulnerable_fails)}, indent=2))
    return 0 if not problems else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
