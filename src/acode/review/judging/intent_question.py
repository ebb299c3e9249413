"""Does the request ask for a change in behaviour? The narrow question behind "intent against behaviour".

Whether old and new code behave differently is a fact the behavioural diff finds; whether the request
asked for that is a question of words, which a word list answers only for the few words on it ("refactor",
"tidy"...). Most requests that promise no change use others ("move the parsing into a helper", "use a
generator"). So the model is asked, as two yes/no questions framed from opposite sides ("does it ask to
change what the code does?" and "does it say what the code does stays the same?"), each in a few wordings
(the votes), read from the answer token's log-probabilities. The verdict is ``no_change`` or ``change`` only
when both framings agree, each by more than the margin; otherwise ``uncertain`` and the word list decides,
as before. A change without a message (a staged change) has no intent: ``none``, nothing is asked.

The answer alone never rejects: it only says how a difference the diff executed is to be read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.prompts import render
from acode.review.evidence.behaviour.findings import IntentVerdict
from acode.review.judging.proposals import PKG
from acode.review.judging.verification import yes_log_odds
from acode.secrets import redact

FRAMINGS = ("asks_change", "keeps_behaviour")
Verdict = Literal["no_change", "change", "uncertain", "none"]


@dataclass
class IntentAnswer:
    verdict: Verdict
    # mean yes/no log-odds per framing (None: no answer could be read)
    log_odds: dict[str, float | None] = field(default_factory=dict)
    votes: int = 0

    def note(self) -> str:
        if self.verdict == "none":
            return "no request stated (no commit message or intent): nothing to hold the behaviour against"
        odds = ", ".join(f"{name} {value:+.2f}" for name, value in self.log_odds.items() if value is not None)
        said = {"no_change": "the request asks for no behaviour change",
                "change": "the request asks for a behaviour change",
                "uncertain": "whether the request asks for a behaviour change is not clear"}[self.verdict]
        return f"{said} (model, both framings, {self.votes} vote(s) each: {odds or 'unreadable'})"

    def record(self) -> dict:
        return {"verdict": self.verdict, "log_odds": self.log_odds, "votes": self.votes, "note": self.note()}

    def as_verdict(self) -> IntentVerdict | None:
        """The reading to weigh the behavioural diff's findings with again (``reweigh``): only a request that
        asks for no behaviour change changes how a difference counts. Asked for a change, each difference
        still goes to the question of which outcome is right, as before; uncertain or no request: the word
        list's reading stands."""
        if self.verdict != "no_change":
            return None
        return IntentVerdict(no_change="the model, asked both ways, agrees", asks_change=False,
                             source="model")


def ask_intent(model: ChatModel, intent: str, *, votes: int, margin: float, timeout: Callable[[], float],
               progress: Callable[[str], None] = lambda _: None) -> IntentAnswer:
    """The verdict on ``intent`` from ``votes`` wordings of each framing (see the module doc)."""
    text = redact(intent.strip())[:800]
    if not text:
        return IntentAnswer("none")
    progress("asking whether the request asks for a behaviour change")
    system = Message.system(render(PKG, "system.j2"))
    means: dict[str, float | None] = {}
    for framing in FRAMINGS:
        odds = []
        for wording in range(votes):
            question = render(PKG, "intent_question.j2", intent=text, framing=framing, wording=wording % 2)
            answer = model.complete([system, Message.user(question)], max_tokens=1, temperature=0.0,
                                    logprobs=10, timeout=timeout())
            said = yes_log_odds(answer)
            if said is not None:
                odds.append(said)
        means[framing] = round(sum(odds) / len(odds), 3) if odds else None
    return IntentAnswer(_verdict(means, margin), means, votes)


def _verdict(means: dict[str, float | None], margin: float) -> Verdict:
    change, keeps = means.get("asks_change"), means.get("keeps_behaviour")
    if change is None or keeps is None:
        return "uncertain"
    if keeps > margin and change < -margin:
        return "no_change"
    if change > margin and keeps < -margin:
        return "change"
    return "uncertain"
