"""Where the executed evidence can reach at all in ``untested_bugs`` records (issue 49): per half and source,
the bugs a perfect judge of the evidence could reject (the review rejected them, or the behavioural diff
found a difference in one of their changed functions), the balanced-accuracy ceiling that gives with every
sound change approved, and every changed function of the bugs counted by what the diff made of it: differs,
the same on every input tried (by how many inputs), or not run (by why).

    python benchmarks/review/untested_bugs.py --summarise nomodel.jsonl     # "reach" is part of the report
"""

from __future__ import annotations

import re

# why a function was not run, in the runner's words -> a short reason (the first that matches)
_NOT_RUN = (
    (re.compile(r"every input tried \(\d+\) raised on both sides"), "raised on every input tried"),
    (re.compile(r"does not import \((\w+Error): No module named '([\w.]+)'"), "a dependency is missing"),
    (re.compile(r"does not import"), "the module does not import"),
    (re.compile(r"starts a process"), "starts a process"),
    (re.compile(r"for writing|changes files"), "writes a file"),
    (re.compile(r"uses the network"), "uses the network"),
    (re.compile(r"cannot be built without arguments"), "its class needs arguments"),
    (re.compile(r"no signature"), "no signature (a property)"),
    (re.compile(r"the runner failed"), "the runner failed"),
    (re.compile(r"time (box|plan)"), "out of time"),
    (re.compile(r"coroutine"), "a coroutine"),
    (re.compile(r"over the \d+ functions"), "over the functions per review"),
)
_SAME = ((1, "1-9 inputs"), (10, "10-99 inputs"), (100, "100+ inputs"))


def not_run_reason(why: str) -> str:
    for pattern, reason in _NOT_RUN:
        found = pattern.search(why)
        if found:
            return f"{reason} ({found.group(2)})" if reason == "a dependency is missing" else reason
    return why[:60] or "?"


def same_bucket(tried: int) -> str:
    return next((label for least, label in reversed(_SAME) if tried >= least), "0 inputs")


def functions_of(row: dict) -> list[dict]:
    return (row.get("behaviour") or {}).get("functions") or []


def reachable(row: dict) -> bool:
    """A bug the evidence can show: rejected already, or a difference found in a changed function."""
    return row["verdict"] == "REJECTED" or any(f["status"] == "differs" for f in functions_of(row))


def _tally(values) -> dict[str, int]:
    out: dict[str, int] = {}
    for value in values:
        out[value] = out.get(value, 0) + 1
    return dict(sorted(out.items(), key=lambda item: (-item[1], item[0])))


def of_bugs(bugs: list[dict]) -> dict:
    functions = [f for row in bugs for f in functions_of(row)]
    caught = sum(reachable(row) for row in bugs)
    return {
        "bugs": len(bugs), "reachable": caught,
        "ceiling_balanced": round((1 + caught / len(bugs)) / 2, 3) if bugs else None,
        "functions": len(functions),
        "differ": sum(f["status"] == "differs" for f in functions),
        "same": _tally(same_bucket(f["tried"]) for f in functions if f["status"] == "same"),
        "not_run": _tally(not_run_reason(f["why"]) for f in functions if f["status"] == "not_run"),
        "bugs_without_a_compared_function": sum(not functions_of(row) for row in bugs),
        "reachable_bugs": sorted(row["name"] for row in bugs if reachable(row)),
    }


def reach(rows: list[dict]) -> dict:
    """Per half and source (and overall), ``of_bugs`` of the bugs (the changes expected REJECTED)."""
    bugs = [r for r in rows if r["expected"] == "REJECTED"]
    out: dict = {"overall": of_bugs(bugs)}
    for half in dict.fromkeys(r["half"] for r in bugs):
        for source in dict.fromkeys(r["source"] for r in bugs if r["half"] == half):
            out[f"{half} {source}"] = of_bugs([r for r in bugs
                                               if r["half"] == half and r["source"] == source])
    return out


def per_function(rows: list[dict]) -> list[str]:
    """One line per changed function of each bug: the bug, the function, status, inputs tried, why."""
    return [f"{r['name']:<36} {f['function'][:44]:<44} {f['status']:<8} {f['tried']:>4} "
            f"{not_run_reason(f['why']) if f['status'] == 'not_run' else ''}"
            for r in rows if r["expected"] == "REJECTED" for f in functions_of(r)]
