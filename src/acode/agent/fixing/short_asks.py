"""The short asks after the one call (docs/guide/fixing.md): the one wrong line of the shown files, then each
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
        """For each suspect function, shown alone: one greedy call; then, while the token budget lasts, the
        one-line ask about it when the greedy reply gave it back unchanged, and ``suspect_samples`` samples
        (of the function ask where it changed the function, else of the line ask: a sample of an echo is
        an echo). A suspect's calls follow one another, so the KV cache holds their prompt (asked round by
        round, each call evaluated the function again: 170-710 tokens, 15-45 s at load 3). The first new
        candidate that passes (its examples too) is the answer. A reply is merged into the best candidate
        so far when that passes more of the named tests than the files did, so a fix of two functions is
        built one at a time."""
        for ask, framing, line_framing in self.suspect_framings:
            spent = self.door.generated
            parsed, answer = self._suspect_reply(ask, framing, 0.0, SUSPECT_SEED)
            self.unbudgeted += self.door.generated - spent  # each suspect's greedy ask is always made
            self.first_tokens = self.first_tokens or self.door.generated - spent  # no whole-file call
            if answer is not None or (answer := self._follow_ups(ask, framing, line_framing, parsed)):
                return answer
        return None

    def _follow_ups(self, ask: SuspectAsk, framing: list[Message], line_framing: list[Message],
                    greedy: dict[str, str] | str) -> str | None:
        """The line ask and the samples about one suspect, after its greedy ask replied ``greedy``."""
        line = isinstance(greedy, str)  # the function back unchanged (or no block): ask for its line
        temperatures = [0.0] * line + [self.settings.sample_temperature] * self.settings.suspect_samples
        for number, temperature in enumerate(temperatures, start=0 if line else 1):
            if self.over_budget():
                return None
            parsed, answer = self._suspect_reply(ask, line_framing if line else framing, temperature,
                                                 SUSPECT_SEED + number, line)
            if answer is not None or (number == 0 and parsed == COPIES_INSTRUCTION):
                return answer  # or the greedy line ask copies the example: the model ignores the format
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
