"""The short asks after the one call (docs/agent.md): the one wrong line of the shown files, then each
suspect function of the test spectrum alone, the one wrong line of a suspect given back unchanged, and
their samples. A mixin of ``fixer.Attempts``: the asks use the session's state and its calls (the
model, the judging of a candidate, the token budget), declared below."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from acode.agent.fixing.line_edit import LINE_REPLY_TOKENS, LINE_STOP, apply_line_edit, copies_instruction
from acode.agent.fixing.rewrite import FileView, parse_reply
from acode.agent.fixing.suspect_ask import SUSPECT_STOP, SuspectAsk, line_reply_as_function
from acode.config.agent import FixConfig
from acode.llm.types import Message

if TYPE_CHECKING:
    from acode.agent.fixing.answers import Candidate
    from acode.agent.fixing.outcome import TestOutcome
    from acode.agent.loop.solver_door import SolverDoor

COPIES_INSTRUCTION = "the reply copies the instruction's example block"
LINE_SEED, SUSPECT_SEED = 100, 200  # the one-line and suspect asks' seeds, apart from the whole-file calls'


class ShortAsks:
    # the session's state (fixer.Attempts sets it)
    settings: FixConfig
    door: SolverDoor
    views: list[FileView]
    context: list[FileView]
    before: TestOutcome
    best: Candidate | None
    line_framing: list[Message]
    suspect_framings: list[tuple[SuspectAsk, list[Message], list[Message]]]
    unbudgeted: int
    first_tokens: int

    # the session's calls (fixer.Attempts defines them)
    def _ask(self, messages: list[Message], temperature: float, *, seed: int, max_tokens: int | None = None,
             stop: list[str] | None = None) -> str:
        raise NotImplementedError

    def _judge_uncounted(self, kind: str, contents: dict[str, str], note: str = "") -> str | None:
        raise NotImplementedError

    def over_budget(self) -> bool:
        raise NotImplementedError

    def _line_edits(self) -> str | None:
        """The one call's prompt asking only for the wrong line: greedy, then samples. Each new edit is
        tested; the first that passes (its examples too) is the answer. A greedy reply that copies the
        instruction's example block ends them; a sample that does is skipped."""
        for sample in range(self.settings.line_edit_calls):
            if self.over_budget():
                break
            temperature = 0.0 if sample == 0 else self.settings.sample_temperature
            reply = self._ask(self.line_framing, temperature, seed=LINE_SEED + sample,
                              max_tokens=LINE_REPLY_TOKENS, stop=LINE_STOP)
            if copies_instruction(reply):
                if sample == 0:
                    break  # the greedy ask copies the example: the model does not follow the format
                continue  # one sample that copies it (the 1.5B, now and then) is no reason to stop
            edit = apply_line_edit(reply, self.views)
            if isinstance(edit, str):
                continue  # no line of a target, or an edit that breaks the file
            if (answer := self._judge_uncounted("line", edit)) is not None:
                return answer
        return None

    def _suspect_asks(self) -> str | None:
        """One greedy call for each suspect function, shown alone; then, while the token budget lasts, the
        one-line ask about each function its greedy reply gave back unchanged, and ``suspect_samples``
        rounds of samples (of the function ask where it changed the function, else of the line ask: a
        sample of an echo is an echo). The first new candidate that passes (its examples too) is the
        answer. A reply is merged into the best candidate so far when that passes more of the named tests
        than the files did, so a fix of two functions is built one at a time."""
        follow = []  # (ask, framing, line ask?) to sample
        for ask, framing, line_framing in self.suspect_framings:
            spent = self.door.generated
            parsed, answer = self._suspect_reply(ask, framing, 0.0, SUSPECT_SEED)
            self.unbudgeted += self.door.generated - spent  # each suspect's greedy ask is always made
            self.first_tokens = self.first_tokens or self.door.generated - spent  # no whole-file call
            if answer is not None:
                return answer
            follow.append((ask, framing, False) if not isinstance(parsed, str) else (ask, line_framing, True))
        for round_ in range(self.settings.suspect_samples + 1):
            for entry in list(follow):
                ask, framing, line = entry
                if round_ == 0 and not line:
                    continue  # round 0: the greedy line asks
                if self.over_budget():
                    return None
                temperature = self.settings.sample_temperature if round_ else 0.0
                parsed, answer = self._suspect_reply(ask, framing, temperature, SUSPECT_SEED + round_, line)
                if answer is not None:
                    return answer
                if round_ == 0 and parsed == COPIES_INSTRUCTION:
                    follow.remove(entry)  # the model does not follow the format (the 0.5B): no samples
        return None

    def _suspect_reply(self, ask: SuspectAsk, framing: list[Message], temperature: float, seed: int,
                       line: bool = False) -> tuple[dict[str, str] | str, str | None]:
        """One ask's reply (``line``: the one-line ask's, read as the function with that line changed),
        merged by name into the best candidate so far (when it passes more of the named tests than the
        files did) and tested when it is a new candidate: the parsed reply, and the success answer or None."""
        if line:
            reply = self._ask(framing, temperature, seed=seed + LINE_SEED, max_tokens=LINE_REPLY_TOKENS,
                              stop=LINE_STOP)
            if copies_instruction(reply):
                return COPIES_INSTRUCTION, None
            reply = line_reply_as_function(reply, ask) or ""
        else:
            reply = self._ask(framing, temperature, seed=seed, stop=SUSPECT_STOP,
                              max_tokens=self.door.output_tokens_for(ask.shown.text))
        best = self.best.contents if self.best and self.best.outcome.better_than(self.before) else {}
        view = replace(ask.view, text=best.get(ask.view.path, ask.view.text))
        parsed = parse_reply(reply, [view], self.context)
        if isinstance(parsed, str):
            return parsed, None  # no candidate: the function unchanged, no block
        return parsed, self._judge_uncounted("suspect", {**best, **parsed})
