"""Each suspect function of the test spectrum, shown alone (docs/guide/fixing.md): its greedy ask, the one
wrong line of a suspect given back unchanged, and their samples; a source of the pipeline (pipeline.py)."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal, Why
from acode.agent.fixing.line_edit import LINE_REPLY_TOKENS, LINE_STOP, copies_instruction
from acode.agent.fixing.line_edits import COPIES_INSTRUCTION, LINE_SEED
from acode.agent.fixing.rewrite import parse_reply
from acode.agent.fixing.suspect_ask import SUSPECT_STOP, SuspectAsk, line_reply_as_function
from acode.llm.types import Message

SUSPECT_SEED = 200  # the suspect asks' seeds, apart from the whole-file calls' and the line asks'


class SuspectAsks:
    """For each suspect function, shown alone: one greedy call; then, while the token budget lasts, the
    one-line ask about it when the greedy reply gave it back unchanged, and ``suspect_samples`` samples
    (of the function ask where it changed the function, else of the line ask: a sample of an echo is an
    echo). A suspect's calls follow one another, so the KV cache holds their prompt (asked round by round,
    each call evaluated the function again: 170-710 tokens, 15-45 s at load 3). A reply is merged into the
    best candidate so far when that passes more of the named tests than the files did, so a fix of two
    functions is built one at a time. The greedy asks do not count against the token budget."""

    name = "suspect"
    counts_as_attempt, keep_if_partial, needs_model = False, True, True

    def candidates(self, session: FixSession) -> Candidates:
        door = session.door
        for ask, framing, line_framing in session.suspect_framings:
            spent = door.generated
            parsed = yield from _suspect_reply(session, ask, framing, 0.0, SUSPECT_SEED)
            session.unbudgeted += door.generated - spent  # each suspect's greedy ask is always made
            session.first_tokens = session.first_tokens or door.generated - spent  # no whole-file call
            yield from _follow_ups(session, ask, framing, line_framing, parsed)
        return None


Replies = Generator[Proposal, Why, "dict[str, str] | str"]


def _follow_ups(session: FixSession, ask: SuspectAsk, framing: list[Message], line_framing: list[Message],
                greedy: dict[str, str] | str) -> Candidates:
    """The line ask and the samples about one suspect, after its greedy ask replied ``greedy``."""
    settings = session.settings
    line = isinstance(greedy, str)  # the function back unchanged (or no block): ask for its line
    temperatures = [0.0] * line + [settings.sample_temperature] * settings.suspect_samples
    for number, temperature in enumerate(temperatures, start=0 if line else 1):
        if session.over_budget():
            return None
        parsed = yield from _suspect_reply(session, ask, line_framing if line else framing, temperature,
                                           SUSPECT_SEED + number, line)
        if number == 0 and parsed == COPIES_INSTRUCTION:
            return None  # the greedy line ask copies the example: the model ignores the format
    return None


def _suspect_reply(session: FixSession, ask: SuspectAsk, framing: list[Message], temperature: float,
                   seed: int, line: bool = False) -> Replies:
    """One ask's reply (``line``: the one-line ask's, read as the function with that line changed), merged
    by name into the best candidate so far (when it passes more of the named tests than the files did), a
    candidate when it changes something; returns the parsed reply."""
    if line:
        reply = session.ask(framing, temperature, seed=seed + LINE_SEED, max_tokens=LINE_REPLY_TOKENS,
                            stop=LINE_STOP)
        if copies_instruction(reply):
            return COPIES_INSTRUCTION
        reply = line_reply_as_function(reply, ask) or ""
    else:
        reply = session.ask(framing, temperature, seed=seed, stop=SUSPECT_STOP,
                            max_tokens=session.door.output_tokens_for(ask.shown.text))
    best = session.best
    kept = best.contents if best and best.outcome.better_than(session.before) else {}
    view = replace(ask.view, text=kept.get(ask.view.path, ask.view.text))
    parsed = parse_reply(reply, [view], session.context)
    if isinstance(parsed, str):
        return parsed  # no candidate: the function unchanged, no block
    yield Proposal({**kept, **parsed})
    return parsed
