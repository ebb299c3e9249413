"""The bugs no test catches (issue 49): real bug fixes of real projects that neither the project's tests nor
its history can decide, and the logic defects with their sound twins.

Real commits (``real_fixes``): every fix of ``real_commits_set`` from the PyPI projects (the tuning and the
held-back projects, acode's own fixes left out: acode is the reviewer being tuned), with
- **the fix's own tests removed**: only the source files change; the test files stay as they were before
  the fix on both sides, so no test the fix brought can show the bug;
- **the history squashed**: `main` is one commit (the project before the fix, or with the fix), so no
  earlier commit says a fix is being undone;
- **the tests not runnable**: the runner reviews with ``run_tests`` off (``untested_bugs.py``); the
  "tests decide" control set (``--tests``) reviews a few of the same changes with them on;
- **neutral messages** where a bug comes back: the ``revert`` direction is "Update <files>" (a commit
  that puts a bug back rarely says so); the ``fix`` direction keeps the fix's own changelog words, as a
  real fix commit has them.

Each fix gives two changes: ``fix`` (expected APPROVED) and ``revert`` (the bug put back, expected REJECTED).
The split is deterministic and independent of the order or number of fixes: a fix is in the ``held-out``
half when the first byte of sha256(its name) is odd, else in ``tune``.

Kinds of defect (``defect_kind``), read from the lines the fix changed (a heuristic, the first that applies):
``condition`` (an ``if``/``elif``/``while``/``assert`` line or a comparison changed), ``error handling``
(``raise``/``except``/``try``), ``return value`` (a ``return`` line), ``call or value`` (anything else).
The logic pairs carry their own ``bug_type``.

    python benchmarks/tasks/untested_bugs_set.py    # list the set, per half (downloads the sdists once)
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.tasks import real_commits_set as rcs

REPO = Path(__file__).resolve().parents[2]
LOGIC = REPO / "benchmarks" / "data" / "logic_pairs.jsonl"
HALVES = ("tune", "held-out")
_KINDS = (("condition", re.compile(r"^\s*(if|elif|while|assert)\b|[=!<>]=|\s[<>]\s")),
          ("error handling", re.compile(r"^\s*(raise|except|try)\b")),
          ("return value", re.compile(r"^\s*return\b")))


@dataclass
class Change:
    """One change to review: a repository is built from it on demand (``build``)."""

    name: str  # "click 8.1.6->8.1.7 fix", "Logic/3 to_buggy"
    source: str  # "real" or "logic"
    project: str
    half: str
    direction: str  # fix / revert, or to_canonical / to_buggy
    expected: str
    kind: str
    fix: rcs.Fix | None = None
    task: dict | None = None


def half_of(name: str) -> str:
    return HALVES[hashlib.sha256(name.encode()).digest()[0] % 2]


def defect_kind(fix: rcs.Fix) -> str:
    changed = []
    for path in fix.source_paths():
        old, new = fix.changes[path]
        diff = difflib.unified_diff((old or "").splitlines(), (new or "").splitlines(), lineterm="", n=0)
        changed += [line[1:] for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    code = [line for line in changed if line.strip() and not line.strip().startswith("#")]
    for kind, pattern in _KINDS:
        if any(pattern.search(line) for line in code):
            return kind
    return "call or value"


def without_tests(fix: rcs.Fix) -> rcs.Fix:
    """The fix with its own test changes removed (the source files only)."""
    return rcs.Fix(project=fix.project, name=fix.name, message=fix.message, before=fix.before,
                   changes={p: fix.changes[p] for p in fix.source_paths()})


def real_fixes(projects: set[str] | None = None) -> list[rcs.Fix]:
    out = []
    for which in ("tuning", "held-back"):
        for name, versions in rcs.RELEASE_SETS[which].items():
            if projects is None or name in projects:
                out += [without_tests(f) for f in rcs.pypi_fixes(name, versions)]
    return out


def logic_tasks() -> list[dict]:
    return [json.loads(line) for line in LOGIC.read_text(encoding="utf-8").splitlines() if line.strip()]


def changes(halves: tuple[str, ...] = HALVES, sources: tuple[str, ...] = ("real", "logic"),
            projects: set[str] | None = None) -> list[Change]:
    out: list[Change] = []
    if "real" in sources:
        for fix in real_fixes(projects):
            half = half_of(fix.name)
            if half in halves:
                kind = defect_kind(fix)
                out += [Change(f"{fix.name} {d}", "real", fix.project, half, d, e, kind, fix=fix)
                        for d, e in (("fix", "APPROVED"), ("revert", "REJECTED"))]
    if "logic" in sources:
        for task in logic_tasks():
            # the logic pairs keep the split they have always had: even task numbers tune, odd ones report
            half = HALVES[int(task["task_id"].split("/")[1]) % 2]
            if half in halves:
                out += [Change(f"{task['task_id']} {d}", "logic", "logic", half, d, e, task["bug_type"],
                               task=task)
                        for d, e in (("to_canonical", "APPROVED"), ("to_buggy", "REJECTED"))]
    return out


def build(change: Change, dest: Path) -> Path:
    """The repository of ``change`` at ``dest``: `main` one commit, the checked-out `change` one more."""
    if change.source == "logic":
        from benchmarks.review.review_accuracy import build_repo

        task = change.task or {}
        before, after = task["canonical_solution"], task["buggy_solution"]
        if change.direction == "to_canonical":
            before, after = after, before
        return build_repo(dest, task, before, after)
    assert change.fix is not None
    return rcs.build(change.fix, change.direction, dest, history=False)


def describe(items: list[Change]) -> dict:
    def count(rows: list[Change]) -> dict:
        return {"changes": len(rows), "by_project": _tally(r.project for r in rows),
                "by_kind": _tally(r.kind for r in rows if r.expected == "REJECTED")}

    return {half: {**count([c for c in items if c.half == half]),
                   "names": sorted({c.name.rsplit(" ", 1)[0] for c in items if c.half == half})}
            for half in HALVES}


def _tally(values) -> dict:
    out: dict[str, int] = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items()))


if __name__ == "__main__":
    print(json.dumps(describe(changes()), indent=2))
