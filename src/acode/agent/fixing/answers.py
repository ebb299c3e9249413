"""What the fixer says at the end: the answer with the diff of the candidate that passed, or why no
candidate did (what was kept, a candidate that broke other tests, the token budget)."""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acode.agent.fixing.fixer import Attempts, Candidate

DIFF_LINES = 40


def success_answer(attempts: Attempts, candidate: Candidate, *, examples_fail: bool = False) -> str:
    """The candidate that passed: which one, what the tests say, its diff (and its caveats)."""
    contents, outcome = candidate.contents, candidate.outcome
    diff = []
    for view in attempts.views:
        if view.path in contents:
            diff += difflib.unified_diff(
                view.text.splitlines(),
                contents[view.path].splitlines(),
                f"a/{view.path}",
                f"b/{view.path}",
                n=1,
                lineterm="",
            )
    shown = "\n".join(diff[:DIFF_LINES]) + ("\n..." if len(diff) > DIFF_LINES else "")
    caveat = (
        f" Its docstring examples still fail (no candidate of {len(attempts.tried)} passed both)."
        if examples_fail else ""
    )
    if attempts.neighbours is not None:
        caveat += f" `{attempts.neighbours.command}` fails on nothing that passed before."
    return (
        f"Changed {', '.join(contents)}; `{attempts.plan.test_command}` passes now ({outcome.summary()}, "
        f"{_which(attempts, candidate)}).{caveat}\n\n```diff\n{shown}\n```"
    )


def _which(attempts: Attempts, candidate: Candidate) -> str:
    if candidate.note:
        return f"candidate {candidate.attempt}: {candidate.note}"
    if attempts.line_edits:
        return f"candidate {candidate.attempt}, {attempts.line_edits} of them one-line edits"
    return f"attempt {candidate.attempt} of {attempts.settings.max_attempts}"


def failure_message(attempts: Attempts) -> str:
    """No candidate passed: how many were tried, what the files are now, and why the search ended."""
    tried = len(attempts.tried)
    if attempts.best is not None and attempts.best.outcome.better_than(attempts.before):
        kept = (
            f" Kept the version that does best ({attempts.best.outcome.summary()}, before: "
            f"{attempts.before.summary()})."
        )
    else:
        kept = " The files are as they were."
    if attempts.unrestored:
        kept = f" {', '.join(attempts.unrestored)} could not be put back (the write was refused or failed)."
    if attempts.breaking is not None:
        candidate, broke = attempts.breaking
        named = ", ".join(broke[:3]) + (", ..." if len(broke) > 3 else "")
        kept += (f" Candidate {candidate.attempt} made it pass but broke {len(broke)} other test(s) of "
                 f"its files that passed before ({named}).")
    budget = (
        f" Its model calls reached agent.fix.token_budget ({attempts.settings.token_budget:g} times the "
        f"first call's {attempts.first_tokens} tokens)." if attempts.over_budget() else ""
    )
    paths = ", ".join(v.path for v in attempts.views)
    command = attempts.plan.test_command
    return f"`{command}` still fails after {tried} candidate fix(es) of {paths}.{kept}{budget}"
