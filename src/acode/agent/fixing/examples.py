"""The module's own examples (doctests) as a second judge: passing the shown tests is not the fix when
the candidate breaks the examples in its docstrings (a small model overfits three asserts). The
examples run with the project's test runner when it is pytest, else with the standard library's
doctest; only a run that found and failed examples counts against a candidate.

On a real project (the named tests inside files, their neighbours checked), an example that failed before
the edit, in a definition the edit did not change, is not the candidate's: ten of pyparsing's `core.py`
examples fail on its release (reStructuredText `.. doctest::` blocks that pytest runs as plain examples),
and every candidate was refused for them, the right one too. One in a changed definition still counts. On
a small project every failing example counts: there the bug's own examples fail before the edit, and a
candidate that leaves them failing is the overfit the check is for."""

from __future__ import annotations

import ast
import difflib
import shlex
from pathlib import Path

from acode.agent.fixing.outcome import failing_ids

EXAMPLE_MARK = ">>> "
FAILED = 1  # pytest's and doctest's exit code for failed tests (others: no examples, could not run)


def files_with_examples(contents: dict[str, str]) -> list[str]:
    return sorted(p for p, text in contents.items() if p.endswith(".py") and EXAMPLE_MARK in text)


def examples_command(test_command: str, paths: list[str]) -> str | None:
    """The command that runs the examples in ``paths`` the way the project runs its tests."""
    if not paths:
        return None
    try:
        words = shlex.split(test_command)
    except ValueError:
        return None
    quoted = " ".join(shlex.quote(p) for p in paths)
    runner = next((i for i, w in enumerate(words) if Path(w).name == "pytest"), None)
    if runner is not None:  # `python -m pytest -q tests/x` -> `python -m pytest -q --doctest-modules f.py`
        head = " ".join(shlex.quote(w) for w in words[: runner + 1])
        return f"{head} -q -p no:cacheprovider --doctest-modules {quoted}"
    python = words[0] if words and Path(words[0]).name.startswith("python") else "python3"
    return f"{shlex.quote(python)} -m doctest {quoted}"


def examples_failed(exit_code: int | None) -> bool:
    return exit_code == FAILED


def new_failures(after: str, before: str | None, originals: dict[str, str], contents: dict[str, str]) -> bool:
    """Whether the examples' run ``after`` the edit fails an example that did not fail ``before`` it (the
    same command on the original files; None: not known), or one in a definition the edit changed. When
    the runs name no failing example (the standard library's doctest), every failure counts."""
    failed = failing_ids(after)
    if before is None or not failed:
        return True
    earlier = set(failing_ids(before))
    changed = set().union(*(changed_definitions(originals.get(p, ""), text) for p, text in contents.items()))
    for node in failed:
        name = node.split("::")[-1]
        if node not in earlier or any(name == c or name.endswith("." + c) for c in changed):
            return True
    return False


def changed_definitions(old: str, new: str) -> set[str]:
    """The qualified names (``Class.method``) of the innermost definitions of ``old`` holding a line
    ``new`` changes (none when ``old`` does not parse)."""
    try:
        tree = ast.parse(old)
    except (SyntaxError, ValueError):
        return set()
    spans: list[tuple[int, int, str]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                spans.append((child.lineno, child.end_lineno or child.lineno, prefix + child.name))
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    found = set()
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    for tag, first, last, _, _ in matcher.get_opcodes():
        for line in range(first + 1, max(last, first + 1) + 1) if tag != "equal" else ():
            inside = [s for s in spans if s[0] <= line <= s[1]]
            if inside:
                found.add(max(inside)[2])
    return found
