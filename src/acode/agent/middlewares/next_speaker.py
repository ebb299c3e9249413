"""Next-speaker check: after a turn with no tool call, did the model mean to go on ("Next, I will ...")?

Cheap rules decide most cases; the utility model is asked only when the rules cannot tell (and only if
one is configured). When the model should go on, the loop gets "Please continue." as the next user
message, at most ``max_continues`` times in a row and never past the turn limit.
"""

from __future__ import annotations

import logging
import re
from typing import Literal

from pydantic import BaseModel, Field

from acode.agent.loop.middleware import AgentState, Middleware
from acode.config.middlewares import NextSpeakerSettings
from acode.errors import AcodeError
from acode.llm.bounded_fields import bounded_text
from acode.llm.protocol import ChatModel
from acode.llm.routing import ModelProvider, resolve_provider
from acode.llm.structured import complete_json
from acode.llm.types import Message, ToolCall
from acode.prompts import render
from acode.tools.base import ToolResult

log = logging.getLogger("acode.agent.next_speaker")

CONTINUE_MESSAGE = "Please continue."
Speaker = Literal["user", "model"]

_GOES_ON = re.compile(
    r"\b(next|then|now|first),? (i|i'll|i will|let me|we|we'll)\b|\b(i will|i'll|let me|let's|i am going to|"
    r"i'm going to) (now |next |then )?(start|begin|create|write|add|run|check|look|read|open|update|edit|"
    r"fix|implement|modify|search|test|try|proceed|continue|move on)\b|\bproceed(ing)? (to|with)\b",
    re.IGNORECASE,
)
_HANDS_BACK = re.compile(
    r"\b(let me know|would you like|do you want|shall i|should i|anything else|feel free|hope this helps|"
    r"is there anything|please (confirm|provide|clarify|tell|let me know)|any questions)\b",
    re.IGNORECASE,
)
_DONE = re.compile(
    r"\b(done|finished|completed|complete|all (tests|checks) pass(ed)?|have (added|created|fixed|updated|"
    r"implemented|written|made)|has been (added|created|fixed|updated|implemented)|summary)\b",
    re.IGNORECASE,
)

_REPORTS_DONE = re.compile(
    r"^(i |i've |i have "
    r")?(wrote|written|created|added|updated|fixed|implemented|removed|renamed|changed|made|"
    r"ran|moved|deleted|replaced|[a-z]+ed)\b",
    re.IGNORECASE,
)


def rule_verdict(text: str) -> Speaker | None:
    """'model' if the text announces more work, 'user' if it hands back or finished, None when unclear."""
    body = text.strip()
    if not body:
        return "model"
    if body.endswith("```"):
        return None
    tail = body[-300:]
    last_sentence = re.split(r"(?<=[.!?])\s+", tail)[-1]
    if body.endswith("?") or _HANDS_BACK.search(tail):
        return "user"
    if body.endswith((":", "...")):
        return "model"
    if _GOES_ON.search(last_sentence):
        return "model"
    if _DONE.search(tail) or _REPORTS_DONE.match(last_sentence):
        return "user"
    return None


class NextSpeakerVerdict(BaseModel):
    reasoning: bounded_text(160) = Field(description="one sentence")
    next_speaker: Speaker


class NextSpeakerCheck(Middleware):
    name = "next_speaker"

    def __init__(
        self,
        settings: NextSpeakerSettings | None = None,
        *,
        max_turns: int,
        model: ChatModel | ModelProvider | None = None,
    ):
        self.settings = settings or NextSpeakerSettings()
        self.max_turns = max_turns
        self._model = model if self.settings.use_model else None
        self._continues = 0
        self.model_checks = 0
        self.last_model_verdict: NextSpeakerVerdict | None = None

    def on_session_start(self, state: AgentState) -> None:
        self._continues = 0

    def before_model(self, state: AgentState) -> None:
        last_user = next((m for m in reversed(state.history) if m.role == "user"), None)
        if (
            last_user is not None
            and last_user.content != CONTINUE_MESSAGE
            and state.history[-1].role == "user"
        ):
            self._continues = 0  # a real user turn resets the run of nudges

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> None:
        self._continues = 0  # the model acted, so earlier nudges are no longer "in a row"

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        if not self.settings.enabled or self._continues >= self.settings.max_continues:
            return None
        if state.turn + 1 >= self.max_turns:
            return None
        speaker = rule_verdict(text)
        how = "rules"
        if speaker is None:
            speaker, how = self._ask_model(text), "model"
        log.info("next speaker after turn %d: %s (by %s)", state.turn, speaker, how)
        if speaker != "model":
            return None
        self._continues += 1
        return CONTINUE_MESSAGE

    def _ask_model(self, text: str) -> Speaker:
        if self._model is None:
            return "user"
        self.model_checks += 1
        prompt = render("acode.agent", "next_speaker.j2", last_message=text[-1500:])
        try:
            model = resolve_provider(self._model)
            assert model is not None
            self.last_model_verdict = complete_json(
                model, [Message.user(prompt)], NextSpeakerVerdict, max_tokens=96
            )
            return self.last_model_verdict.next_speaker
        except AcodeError as exc:
            log.info("next-speaker check by the model failed: %s", exc)  # internal: the log, not the chat
            return "user"
