"""Loop detection in three levels, cheapest first:

1. tool calls: the tail of (name + canonical arguments) hashes repeats a cycle of 1..5 calls N times;
2. text "chanting": one 50-character chunk recurs 10 times close together (outside code fences;
   tracking resets at tool calls and at structural markdown: headings, lists, tables, quotes, rules);
3. an occasional check of the recent history by the utility model (only after many turns).

First detection: a "step back" nudge is added before the next model call. A second detection stops
the session with LoopDetected. Batch work (the same edit on many different files) differs in its
arguments and never matches level 1.
"""

from __future__ import annotations

import json
import logging
import re
from collections import defaultdict

from pydantic import BaseModel, Field

from acode.agent.loop.middleware import AgentState, Middleware
from acode.agent.loop.stops import LoopDetected
from acode.config.middlewares import LoopDetectionSettings
from acode.errors import AcodeError
from acode.llm.bounded_fields import bounded_text
from acode.llm.protocol import ChatModel
from acode.llm.routing import ModelProvider, resolve_provider
from acode.llm.structured import complete_json
from acode.llm.types import Completion, Message, call_key
from acode.prompts import render

log = logging.getLogger("acode.agent.loop")

_STRUCTURAL = re.compile(r"^\s*(#{1,6}\s|[-*+]\s|\d+[.)]\s|\||>|(?:-{3,}|\*{3,}|_{3,})\s*$)")
_FENCE = re.compile(r"^\s*(```|~~~)")


def repeating_cycle(keys: list[str], repeats: int, max_cycle: int) -> int:
    """Length of the shortest cycle that the tail of ``keys`` repeats ``repeats`` times, else 0."""
    for length in range(1, max_cycle + 1):
        span = length * repeats
        if len(keys) < span:
            break
        tail = keys[-span:]
        if all(tail[i] == tail[i % length] for i in range(span)):
            return length
    return 0


class ChantDetector:
    """Finds a chunk of text repeated many times close together, ignoring code blocks and structure."""

    def __init__(self, chunk_chars: int = 50, repeats: int = 10):
        self.chunk = chunk_chars
        self.repeats = repeats
        self.max_mean_gap = chunk_chars * 10  # "close together": a repeated paragraph of ~500 chars counts
        self.reset()

    def reset(self) -> None:
        self._text = ""
        self._positions: dict[str, list[int]] = defaultdict(list)
        self._in_code = False

    def feed(self, text: str) -> str | None:
        """Add streamed or whole text; the repeated chunk when a chant is found, else None."""
        for line in text.splitlines(keepends=True):
            if _FENCE.match(line):
                self._in_code = not self._in_code
                self._drop_history()
                continue
            if self._in_code:
                continue
            if _STRUCTURAL.match(line):
                self._drop_history()
                continue
            found = self._feed_prose(line)
            if found:
                return found
        return None

    def end_message(self) -> None:
        """A block a message left open (a reply cut at its closing fence) does not run on into the next."""
        self._in_code = False

    def _drop_history(self) -> None:
        self._text = ""
        self._positions.clear()

    def _feed_prose(self, piece: str) -> str | None:
        start = len(self._text)
        self._text += piece
        first = max(0, start - self.chunk + 1)
        for pos in range(first, len(self._text) - self.chunk + 1):
            chunk = self._text[pos : pos + self.chunk]
            if len(set(chunk)) < 6:  # rules of '=====' or runs of spaces are layout, not chanting
                continue
            positions = self._positions[chunk]
            positions.append(pos)
            if len(positions) >= self.repeats:
                recent = positions[-self.repeats :]
                if (recent[-1] - recent[0]) / (self.repeats - 1) <= self.max_mean_gap:
                    return chunk
        return None


class LoopVerdict(BaseModel):
    reasoning: bounded_text(240) = Field(description="one or two sentences")
    confidence: float = Field(ge=0.0, le=1.0, description="how sure you are that the assistant is stuck")


class LoopDetection(Middleware):
    name = "loop_detection"

    def __init__(
        self, settings: LoopDetectionSettings | None = None, model: ChatModel | ModelProvider | None = None
    ):
        self.settings = settings or LoopDetectionSettings()
        self._model = model
        self._keys: list[str] = []
        self._chant = ChantDetector(self.settings.chunk_chars, self.settings.chunk_repeats)
        self._nudged = False
        self._pending_nudge: str | None = None
        self._next_model_check = self.settings.model_check_after_turns
        self.detections: list[tuple[str, str]] = []
        self.last_verdict: LoopVerdict | None = None

    def on_session_start(self, state: AgentState) -> None:
        self._keys.clear()
        self._chant.reset()
        self._nudged = False
        self._pending_nudge = None
        self._next_model_check = state.turn + self.settings.model_check_after_turns

    def before_model(self, state: AgentState) -> None:
        if self._pending_nudge:
            state.history.append(Message.internal(self._pending_nudge))
            self._pending_nudge = None

    def after_model(self, state: AgentState, completion: Completion) -> Completion | None:
        if not self.settings.enabled:
            return None
        found = self._check_tool_calls(completion) or self._check_text(completion)
        if found is None and self._model_check_due(state):
            found = self._check_with_model(state)
        if found is not None:
            self._detected(*found, partial=completion.text)
        return None

    def _check_tool_calls(self, completion: Completion) -> tuple[str, str] | None:
        if not completion.tool_calls:
            return None
        self._chant.reset()
        for call in completion.tool_calls:
            self._keys.append(call_key(call.name, call.arguments))
        del self._keys[: -self.settings.tool_call_repeats * self.settings.max_cycle * 2]
        length = repeating_cycle(self._keys, self.settings.tool_call_repeats, self.settings.max_cycle)
        if not length:
            return None
        names = [c.name for c in completion.tool_calls]
        what = f"the same call to {names[0]}" if length == 1 else f"a cycle of {length} tool calls"
        return (
            "tool_calls",
            f"{what} repeated {self.settings.tool_call_repeats} times with identical arguments",
        )

    def _check_text(self, completion: Completion) -> tuple[str, str] | None:
        if completion.tool_calls or not completion.text:
            return None
        chunk = self._chant.feed(completion.text)
        self._chant.end_message()
        if chunk is None:
            return None
        return "text", f"the text {chunk.strip()[:40]!r}... recurs {self.settings.chunk_repeats} times"

    def _model_check_due(self, state: AgentState) -> bool:
        return self.settings.model_check and self._model is not None and state.turn >= self._next_model_check

    def _check_with_model(self, state: AgentState) -> tuple[str, str] | None:
        recent = state.history[-16:]
        transcript = [
            {"role": m.role, "text": (m.content or _calls_text(m))[:400]}
            for m in recent
            if m.role != "system"
        ]
        prompt = render("acode.agent", "loop_check.j2", messages=transcript)
        try:
            model = resolve_provider(self._model)
            assert model is not None
            verdict = complete_json(model, [Message.user(prompt)], LoopVerdict, max_tokens=160)
        except AcodeError as exc:
            log.info("loop check by the model failed: %s", exc)  # an internal check: the log, not the chat
            self._next_model_check = state.turn + self.settings.model_check_max_interval
            return None
        self.last_verdict = verdict
        low, high = self.settings.model_check_min_interval, self.settings.model_check_max_interval
        self._next_model_check = state.turn + round(high - (high - low) * verdict.confidence)
        log.info(
            "loop check at turn %d: confidence %.2f (%s)", state.turn, verdict.confidence, verdict.reasoning
        )
        if verdict.confidence >= self.settings.model_check_confidence:
            return "model_check", verdict.reasoning[:300]
        return None

    def _detected(self, kind: str, detail: str, *, partial: str) -> None:
        self.detections.append((kind, detail))
        if self._nudged:
            log.warning("loop detected again (%s): stopping", kind)
            raise LoopDetected(kind, detail, partial=partial)
        log.info("loop detected (%s): nudging the model", kind)
        self._nudged = True
        self._chant.reset()
        self._pending_nudge = render("acode.agent", "loop_nudge.j2", detail=detail)


def _calls_text(message: Message) -> str:
    return "; ".join(f"{c.name}({json.dumps(c.arguments, sort_keys=True)[:200]})" for c in message.tool_calls)
