"""The module's own examples (doctests) as a second judge: passing the shown tests is not the fix when
the candidate breaks the examples in its docstrings (a small model overfits three asserts). The
examples run with the project's test runner when it is pytest, else with the standard library's
doctest; only a run that found and failed examples counts against a candidate."""

from __future__ import annotations

import shlex
from pathlib import Path

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
