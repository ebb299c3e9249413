"""What every source of candidate fixes is to the fixer: a name, its policy, and the candidates it proposes.
The sources run in the order of ``pipeline.SOURCES``; each candidate is judged by the one judge
(``fixer.Attempts.judge``), the first that passes is the answer.

A source's ``candidates(session)`` is a generator: it reads the session's state (the files, the first
call's tokens, the best candidate so far) when it resumes, so what it proposes next may depend on how the
last candidate fared; the judge's verdict on a proposal is sent back into it (``why = yield proposal``:
None when it was not judged, else why it is not the answer, rewrite.feedback_message's keywords). A source
that returns True ends the pipeline: no later source runs."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from acode.llm.types import Message


@dataclass(frozen=True)
class Proposal:
    contents: dict[str, str]  # path -> the whole new text of each file it changes
    note: str = ""  # where it came from, said in the answer (a static fix, a function asked for alone)


Why = dict[str, str] | None
Candidates = Generator[Proposal, Why, bool | None]


class FixSession(Protocol):
    """What a source reads and calls of the fixer's state (``fixer.Attempts``, which is one), named here so
    that no source imports the fixer: the fixer imports every source through ``pipeline.SOURCES``."""

    settings: Any  # config.agent.FixConfig
    plan: Any  # detect.FixPlan
    context: Any
    door: Any  # the metered model door (tokens spent so far)
    views: Any  # the files shown to the model (file_view.FileView), and all of them
    all_views: Any
    framings: list  # the whole-file framings, the function and suspect framings, the line framing
    function_framings: Any
    suspect_framings: Any
    line_framing: Any
    asks: Any
    tried: Any  # candidate keys already judged
    uncounted: Any
    before: Any  # the files as they were
    best: Any
    partial: Any
    checks: Any
    call_thread: Any
    first_tokens: int
    first_seconds: float
    first_started: float
    spent_from: int
    test_seconds: float
    unbudgeted: int  # completion tokens not counted against token_budget

    def ask(self, messages: list[Message], temperature: float, *, seed: int, max_tokens: int | None = None,
            stop: list[str] | None = None) -> str:
        """The model's reply to ``messages`` (its fence closed)."""
        ...

    def judge(self, source: CandidateSource, proposal: Proposal) -> tuple[str | None, Why]:
        """The answer when the proposal passes, else None and why not."""
        ...

    def over_budget(self) -> bool: ...

    def to_sample(self, base: list[Message]) -> list[Message] | None: ...

    def note_stuck(self, framing: list[Message], stuck: bool) -> None: ...


class CandidateSource(Protocol):
    name: str
    counts_as_attempt: bool  # counted against agent.fix.max_attempts
    # kept in place when it passes more tests than the files did, or passes the tests but not the file's
    # examples; else (an edit listed without a model) it is kept only as the fix: anything less is a guess
    keep_if_partial: bool
    needs_model: bool  # its candidates come from model calls: skipped when there is no model

    def candidates(self, session: FixSession) -> Candidates: ...
