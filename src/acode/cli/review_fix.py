"""`acode review --fix`: the flag and what it prints (the fixes applied and those left, with the reason)."""

from __future__ import annotations

from typing import Any

import typer

FIX = typer.Option(
    False, "--fix",
    help="After the review, apply ruff's safe fixes of its findings to the working tree: only files the "
    "change touches, only if a file is still what the review read. Prints what it applied and what it left "
    "and why (--json: under \"fixes\"). The exit code is the review's.",
)


def apply_fixes(context: Any, result: Any) -> list[Any]:
    from acode.review.fixing import apply_safe_fixes

    return apply_safe_fixes(context, result)


def fix_lines(outcomes: list[Any]) -> list[str]:
    """One line per fix: applied, or not and why."""
    if not outcomes:
        return ["--fix: the review's findings carry no fix"]
    lines = []
    for o in outcomes:
        where = f"{o.file}:{o.line}" + (f"-{o.end_line}" if o.end_line != o.line else "")
        if o.applied:
            lines.append(f"fixed {o.rule} at {where}: {o.message}")
        else:
            lines.append(f"not fixed {o.rule} at {where}: {o.why}")
    applied = sum(o.applied for o in outcomes)
    lines.append(f"--fix: {applied} fix(es) applied to the working tree, {len(outcomes) - applied} left")
    return lines


def print_fixes(outcomes: list[Any], stream: Any) -> None:
    for line in fix_lines(outcomes):
        stream.print(line, markup=False, highlight=False, soft_wrap=True)
