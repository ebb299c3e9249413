"""A place for every finding: code scanning, merge-request widgets and reviewdog drop or reject a finding
without a file (SARIF results need ``locations``; reviewdog's diff filter drops ``path: "."``). A test the
change breaks is placed at its test function; a finding about the change as a whole at the first changed
file's first changed line."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from acode.review.change.diff import parse_diff
from acode.review.models import ChangedFile, Finding, ReviewContext

# the finding rule -> the key of the test record (``ReviewResult.tests``) naming its tests
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_TESTS_OF_RULE = {"tests/regressed": "regressed", "tests/failed": "new_failing", "fixed/tests": "fixed",
                  "tests/failing-before": "failing_before"}


def locate(findings: list[Finding], context: ReviewContext, tests: dict | None,
           read: Callable[[str], str | None]) -> list[Finding]:
    """``findings`` with a file (and a line where one exists) for each that had none. ``tests``: the test
    record with the test ids per outcome; ``read``: a path's text on the change's side."""
    anchor = first_changed_place(context)
    out = []
    for finding in findings:
        if finding.file:
            out.append(finding)
            continue
        ids = (tests or {}).get(_TESTS_OF_RULE.get(finding.rule, ""), None) or []
        place = next(filter(None, (test_place(test_id, read) for test_id in ids)), None) or anchor
        if place is None:
            out.append(finding)
            continue
        file, line = place
        out.append(finding.model_copy(update={"file": file, "line": line, "end_line": line}))
    return out


def first_changed_place(context: ReviewContext) -> tuple[str, int | None] | None:
    """The first file the change keeps (else the first it touches) and its first added or kept line."""
    kept = [f for f in context.files if f.change_type != "deleted"]
    chosen: ChangedFile | None = (kept or context.files or [None])[0]
    if chosen is None:
        return None
    if chosen.change_type == "deleted":
        return chosen.path, None
    return chosen.path, _first_new_line(chosen.whole_diff)


def _first_new_line(diff: str) -> int | None:
    hunks = parse_diff(diff).hunks
    for hunk in hunks:
        for line in hunk.lines:
            if line.kind == "+" and line.new_no:
                return line.new_no
    return next((line.new_no for hunk in hunks for line in hunk.lines if line.new_no), None)


def test_place(test_id: str, read: Callable[[str], str | None]) -> tuple[str, int | None] | None:
    """Where a test named as a JUnit report names it (``pkg.test_mod.TestClass::test_name[param]``, or
    ``path/test_mod.py::test_name``) is defined: its file and the line of its ``def``; None when no file
    of the change's side matches."""
    module, _, name = test_id.partition("::")
    name = re.sub(r"\[.*\]$", "", name)
    if module.endswith(".py"):
        candidates = [(module, [])]
    else:
        parts = module.split(".")
        candidates = [("/".join(parts[:cut]) + ".py", parts[cut:]) for cut in range(len(parts), 0, -1)]
    for path, classes in candidates:
        text = read(path)
        if text is not None:
            return path, _def_line(text, [*classes, *name.split("::")] if name else classes)
    return None


def _def_line(text: str, names: list[str]) -> int | None:
    """The line of the definition ``names`` leads to (classes, then the function), else None."""
    if not names:
        return None
    try:
        scope: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    line = None
    for name in names:
        found = next((node for node in scope if isinstance(node, _DEFINITIONS) and node.name == name), None)
        if found is None:
            return line
        line, scope = found.lineno, found.body
    return line
