"""What the fixer says at the end: the answer with the diff of the candidate that passed, or why no
candidate did (what was kept, a candidate that broke other tests, the token budget)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.outcome import TestOutcome

DIFF_LINES = 40


@dataclass
class Candidate:
    contents: dict[str, str]
    outcome: TestOutcome
    attempt: int
    note: str = ""  # where it came from, when not from the model (a static fix)

    def which(self, line_edits: int, max_attempts: int) -> str:
        if self.note:
            return f"candidate {self.attempt}: {self.note}"
        if line_edits:
            return f"candidate {self.attempt}, {line_edits} of them one-line edits"
        return f"attempt {self.attempt} of {max_attempts}"


def candidate_key(contents: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """A candidate's identity: the same files with the same texts are the same candidate, tested once."""
    return tuple(sorted(contents.items()))


def success_answer(views: list[FileView], candidate: Candidate, command: str, which: str, *,
                   examples_fail: int = 0, files_checked: str | None = None) -> str:
    """The candidate that passed: which one, what the tests say, its diff, and its caveats
    (``examples_fail``: how many candidates were tried, none of them passing the examples too;
    ``files_checked``: the command that ran the named tests' files whole)."""
    contents = candidate.contents
    diff: list[str] = []
    for view in views:
        if view.path in contents:
            diff += difflib.unified_diff(view.text.splitlines(), contents[view.path].splitlines(),
                                         f"a/{view.path}", f"b/{view.path}", n=1, lineterm="")
    shown = "\n".join(diff[:DIFF_LINES]) + ("\n..." if len(diff) > DIFF_LINES else "")
    caveat = (f" Its docstring examples still fail (no candidate of {examples_fail} passed both)."
              if examples_fail else "")
    if files_checked is not None:
        caveat += f" `{files_checked}` fails on nothing that passed before."
    return (f"Changed {', '.join(contents)}; `{command}` passes now ({candidate.outcome.summary()}, "
            f"{which}).{caveat}\n\n```diff\n{shown}\n```")


def failure_message(command: str, paths: list[str], tried: int, *, kept: Candidate | None,
                    before: TestOutcome, unrestored: list[str],
                    breaking: tuple[Candidate, list[str]] | None, budget: str) -> str:
    """No candidate passed: how many were tried, what the files are now (``kept``: the candidate left in
    place), a candidate that passed by breaking other tests, and ``budget`` (why the calls stopped)."""
    if kept is not None:
        state = f" Kept the version that does best ({kept.outcome.summary()}, before: {before.summary()})."
    else:
        state = " The files are as they were."
    if unrestored:
        state = f" {', '.join(unrestored)} could not be put back (the write was refused or failed)."
    if breaking is not None:
        candidate, broke = breaking
        named = ", ".join(broke[:3]) + (", ..." if len(broke) > 3 else "")
        state += (f" Candidate {candidate.attempt} made it pass but broke {len(broke)} other test(s) that "
                  f"passed before ({named}).")
    return f"`{command}` still fails after {tried} candidate fix(es) of {', '.join(paths)}.{state}{budget}"
