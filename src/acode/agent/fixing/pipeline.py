"""The sources of candidate fixes, in the order they run: the one place that order is written. Each
source is a ``candidate_source.CandidateSource`` (its module says what it proposes and why); each
candidate goes to the one judge, and the first that passes (its examples too) is the answer. Without a
model (``model.backend: none``) the sources that need one are skipped: the others can still fix it. A new
source is a class with the protocol's attributes and ``candidates`` method, and one line here."""

from __future__ import annotations

from acode.agent.fixing.candidate_source import CandidateSource, FixSession
from acode.agent.fixing.crash_edits import CrashEdits
from acode.agent.fixing.function_asks import FunctionAsks
from acode.agent.fixing.line_edits import LineEdits
from acode.agent.fixing.mutants import Mutants
from acode.agent.fixing.static_fixes import StaticFixes
from acode.agent.fixing.suspect_asks import SuspectAsks
from acode.agent.fixing.whole_file_calls import LaterCalls, OneCall

SOURCES: tuple[CandidateSource, ...] = (
    StaticFixes(),  # ruff's fixes that change behaviour: no model call
    OneCall(),  # the one call as anyone would make it, greedy
    FunctionAsks(),  # the function the failing test reaches, greedy then sampled, while the clock allows
    LineEdits(),  # the one wrong line, greedy then sampled
    CrashEdits(),  # the crashed statements guarded, or raising what the test expects: no model call
    Mutants(),  # one-token edits and deleted statements of the shown (suspect) functions: no model call
    SuspectAsks(),  # each suspect function alone, its line ask and samples (then no whole file more)
    LaterCalls(),  # the fixer's own framings, the last failure fed back, then samples
)


def run(session: FixSession) -> str | None:
    """Each source's candidates, judged in turn: the first passing candidate's answer, or None."""
    for source in SOURCES:
        if source.needs_model and not session.door.has_model:
            continue
        candidates = source.candidates(session)
        why = None
        try:
            while True:
                answer, why = session.judge(source, candidates.send(why))
                if answer is not None:
                    return answer
        except StopIteration as end:
            if end.value:
                return None
    return None
