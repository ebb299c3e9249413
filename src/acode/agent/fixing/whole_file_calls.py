"""The whole-file calls: the one call as anyone would make it (greedy: the tests judge it like any
candidate, so the fixer cannot do worse than that call), and after the other sources the fixer's own
framings, the last failure fed back (greedy while ``greedy_attempts`` last), and samples of the framing
used last (still in the KV cache), never of one whose last reply was the file unchanged or a repeat. A
reply that is no candidate is never written or tested. A call after the first is made only while
``max_attempts`` and the token budget allow (``Attempts.over_budget``). Two entries of the pipeline, one
thread of calls: what the one call was told is what the next call follows up."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from acode.agent.fixing.answers import candidate_key
from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.rewrite import UNCHANGED, feedback_message, parse_reply
from acode.llm.types import Message


@dataclass
class CallThread:
    base: list[Message]  # the framing used last: a sample is of it (its prompt is in the KV cache)
    follow_up: list[Message] = field(default_factory=list)  # the last candidate's framing, reply and failure


class OneCall:
    """Call 1: the first whole-file framing, greedy. Without a file shown whole or as an excerpt there is no
    whole-file prompt (only the suspect functions); when no call is made, no later source runs."""

    name = "one call"
    counts_as_attempt, keep_if_partial, needs_model = True, True, True

    def candidates(self, session: FixSession) -> Candidates:
        if not session.views:
            return False
        if session.settings.max_model_calls < 1:
            return True
        return (yield from whole_file_call(session, 1))


class LaterCalls:
    """Calls 2 to ``max_model_calls``, unless there are suspect asks: they and their samples are the rest
    of the budget, no more whole files."""

    name = "whole-file calls"
    counts_as_attempt, keep_if_partial, needs_model = True, True, True

    def candidates(self, session: FixSession) -> Candidates:
        if not session.views or session.suspect_framings:
            return None
        for call in range(2, session.settings.max_model_calls + 1):
            if (yield from whole_file_call(session, call)):
                break
        return None


def whole_file_call(session: FixSession, call: int) -> Candidates:
    """Whole-file call number ``call`` and its candidate; True when no call is made (and none follows)."""
    settings, thread = session.settings, session.call_thread
    if len(session.tried) - session.uncounted.total() >= settings.max_attempts:
        return True
    if call > 1 and session.over_budget():
        return True
    greedy = call <= settings.greedy_attempts
    if call <= len(session.framings):
        thread.base = framing = session.framings[call - 1]
    elif greedy and thread.follow_up:
        framing, thread.follow_up = thread.follow_up, []
        thread.base = next(f for f in session.framings if framing[: len(f)] == f)
    else:  # a sample of the framing used last: its prompt is still in the KV cache
        sampled = session.to_sample(thread.base)
        if sampled is None:
            return True  # every framing echoes: its samples would too
        greedy, framing = False, sampled
        thread.base = framing
    started = time.monotonic()
    reply = session.ask(framing, 0.0 if greedy else settings.sample_temperature, seed=call)
    if call == 1:
        session.first_tokens = session.door.generated - session.spent_from
        session.first_started, session.first_seconds = started, time.monotonic() - started
    parsed = parse_reply(reply, session.views, session.context)
    key = None if isinstance(parsed, str) else candidate_key(parsed)
    session.note_stuck(framing, parsed == UNCHANGED or key in session.tried)
    if not isinstance(parsed, str) and key not in session.tried:  # else no candidate, or one already tested
        why = yield Proposal(parsed)
        if why is not None:
            feedback = feedback_message(session.views, session.plan.test_command, partial=session.partial,
                                        **why)
            thread.follow_up = [*thread.base, Message.assistant(reply), feedback]
    return False
