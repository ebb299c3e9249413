"""Many cheap votes on which outcome of a behavioural difference is right (``behaviour.judge_votes`` > 0).

One yes/no question per outcome (``behaviour_question``) reads a log-odds the 1.5B keeps within ±0.6 of
even: its sign was mostly right on the logic pairs, its size never passed the margin, so it decided
nothing. Here the same difference is put to the model several ways, and only an answer that does not
depend on how it was asked counts:
- the yes/no question once for each outcome (a model's leaning to say yes cancels in new − old): one vote;
- both outcomes side by side, "A or B?", in both orders — old as A, then new as A — so a leaning to the
  first or the last option (position, recency) cancels too; each order is one vote, in each of
  ``wordings`` wordings.
Each vote is a log-odds that the **new** outcome is the right one. The verdict is ``old`` (the difference
counts high) or ``new`` (dismissed) only when every vote leans the same way and their mean passes the
margin; a model that disagrees with itself — an answer that flips under the swap — decides nothing (the
difference stays open, for a person, and for the likelihood check to back or not). With ``swap:
cancelled`` a wording's two orders are one vote, their mean: a leaning to one position cancels instead of
vetoing (the 1.5B leans to A by more than its signal, so each order alone almost always flips).
The question shows the specification the code states (its documentation, its signature, the asserts both
versions make: ``code_spec``); all of it comes before the outcomes, so the calls share the prompt's prefix
in the KV cache and each pays only its last lines and a one-token answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from acode.llm.protocol import ChatModel
from acode.llm.types import Completion, Message
from acode.prompts import render
from acode.review.judging.proposals import PKG
from acode.review.judging.verification import answer_share, log_odds, yes_probability

Side = Literal["old", "new"]
Swap = Literal["consistent", "cancelled"]


@dataclass
class Votes:
    # name -> log-odds that the new outcome is right (None: the answer could not be read)
    votes: dict[str, float | None] = field(default_factory=dict)
    # consistent: each order's answer is a vote of its own, so an answer that flips under the swap is a
    # disagreement; cancelled: a wording's two orders are averaged into one vote, the leaning to one
    # position cancelled (measured on the 1.5B: it prefers A by 0.1-0.4 log-odds, more than the signal)
    swap: Swap = "consistent"

    @property
    def counted(self) -> list[float | None]:
        """The votes that count, under ``swap``."""
        if self.swap == "consistent":
            return list(self.votes.values())
        out = [value for name, value in self.votes.items() if not name.startswith("ab")]
        out += [None if old_first is None or new_first is None else (old_first + new_first) / 2
                for old_first, new_first in self._orders()]
        return out

    @property
    def mean(self) -> float | None:
        counted = [value for value in self.counted if value is not None]
        return sum(counted) / len(counted) if counted else None

    @property
    def position_bias(self) -> float | None:
        """The mean leaning to option A (log-odds) over the wordings asked in both orders."""
        leans = [(new_first - old_first) / 2 for old_first, new_first in self._orders()
                 if old_first is not None and new_first is not None]
        return round(sum(leans) / len(leans), 3) if leans else None

    def _orders(self) -> list[tuple[float | None, float | None]]:
        """Each wording asked in both orders: its votes with the old outcome as A, then the new one as A."""
        return [(value, self.votes.get(name.replace("_old_first", "_new_first")))
                for name, value in self.votes.items() if name.endswith("_old_first")]

    def verdict(self, margin: float) -> Side | None:
        """``new`` or ``old`` when every vote was read, all that count lean one way and their mean passes
        ``margin``; else None (no decision)."""
        counted, mean = self.counted, self.mean
        if mean is None or None in counted or abs(mean) <= margin:
            return None
        if all(value > 0 for value in counted if value is not None):
            return "new"
        if all(value < 0 for value in counted if value is not None):
            return "old"
        return None

    def undecided(self, margin: float) -> str:
        """Why the votes decide nothing (``verdict`` is None)."""
        counted = self.counted
        if None in counted:
            return "some answers could not be read"
        if len({value > 0 for value in counted if value is not None}) > 1:
            return "the answers disagree (the model contradicts itself when the question is turned around)"
        return f"every answer leans one way, but by less than the margin ({margin})"

    def note(self) -> str:
        shown = ", ".join(f"{name} {'unreadable' if value is None else f'{value:+.2f}'}"
                          for name, value in self.votes.items())
        return f"votes for the new outcome: {shown}"


def ask_votes(model: ChatModel, *, header: dict, call: str, old: str, new: str, wordings: int,
              timeout: Callable[[], float], swap: Swap = "consistent") -> Votes:
    """The votes on ``old`` against ``new`` (see the module doc); ``header``: the template's values before
    the outcomes (function, path, intent, instructions, docstring, spec)."""
    system = Message.system(render(PKG, "system.j2"))

    def ask(**values: object) -> Completion:
        question = render(PKG, "behaviour_votes.j2", **header, call=call, **values)
        return model.complete([system, Message.user(question)], max_tokens=1, temperature=0.0, logprobs=10,
                              timeout=timeout())

    out = Votes(swap=swap)
    said = {side: _logit(yes_probability(ask(mode="yes_no", outcome=outcome)))
            for side, outcome in (("old", old), ("new", new))}
    out.votes["yes_no"] = (None if said["old"] is None or said["new"] is None
                           else round(said["new"] - said["old"], 3))
    for wording in range(wordings):
        # old as A: P(B) over P(A) is the vote for new; new as A: P(A) over P(B)
        old_first = _logit(option_probability(ask(mode="pair", wording=wording, first=old, second=new),
                                              "B", "A"))
        new_first = _logit(option_probability(ask(mode="pair", wording=wording, first=new, second=old),
                                              "A", "B"))
        out.votes[f"ab{wording + 1}_old_first"] = old_first
        out.votes[f"ab{wording + 1}_new_first"] = new_first
    return out


def option_probability(completion: Completion, option: str, other: str) -> float | None:
    """P(option) / (P(option) + P(other)) at the first answer token (one letter); from the text when there
    are no logprobs; None when the answer is neither."""
    share = answer_share(completion, option.lower(), other.lower())
    if share is not None:
        return share
    word = (completion.text or "").strip().strip(".:)*").lower()
    return {option.lower(): 1.0, other.lower(): 0.0}.get(word)


def _logit(probability: float | None) -> float | None:
    return None if probability is None else round(log_odds(probability), 3)
