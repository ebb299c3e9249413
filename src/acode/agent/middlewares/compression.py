"""Chat compression: when the prompt reaches a fraction of the context window (default 0.5), first mask
large old tool outputs, then summarise the older part of the history into a state snapshot (utility
model, structured JSON) and keep the newest ~30% verbatim. A result that does not shrink the history is
rejected. ``compress(state, force=True)`` is what ``/compress`` calls."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from acode.agent.loop.middleware import AgentState, Middleware
from acode.agent.middlewares.history_tokens import (
    TokenMeter,
    choose_split,
    leading_system,
    mask_old_tool_outputs,
)
from acode.agent.middlewares.state_snapshot import (
    StateSnapshot,
    previous_original_request,
    render_snapshot,
    tool_facts,
    transcript,
)
from acode.config.middlewares import CompressionSettings
from acode.errors import AcodeError
from acode.llm.protocol import ChatModel
from acode.llm.routing import ModelProvider, resolve_provider
from acode.llm.structured import complete_json
from acode.llm.types import Message
from acode.prompts import render

log = logging.getLogger("acode.agent.compression")

ACK = "Understood. I will continue from this state."


@dataclass
class CompressionReport:
    status: str  # compressed | masked | nothing_to_compress | rejected
    tokens_before: int
    tokens_after: int
    masked: int = 0
    summarised_messages: int = 0
    detail: str = ""


class Compression(Middleware):
    name = "compression"

    def __init__(
        self,
        model: ChatModel,
        settings: CompressionSettings | None = None,
        *,
        summarizer: ChatModel | ModelProvider | None = None,
        outputs_dir: Path,
        fixed_tokens: int = 0,
        on_pre_compress: Callable[[str, int], None] | None = None,
    ):
        """``model`` is the agent's model (its tokenizer and context window); ``summarizer`` the utility
        model (default: the agent's); ``fixed_tokens`` what every prompt adds (tool schemas)."""
        self.model = model
        self.settings = settings or CompressionSettings()
        self.summarizer = summarizer or model
        self.outputs_dir = outputs_dir
        self.fixed_tokens = fixed_tokens
        self.on_pre_compress = on_pre_compress
        self.meter = TokenMeter(model.count_tokens)
        self.reports: list[CompressionReport] = []
        self._retry_above = 0  # after a rejected attempt, wait until the history grew past this

    @property
    def limit(self) -> int:
        return int(self.settings.threshold * self.model.context_window)

    def tokens(self, state: AgentState) -> int:
        return self.meter.history(state.history) + self.fixed_tokens

    def on_session_start(self, state: AgentState) -> None:
        self._retry_above = 0  # /clear and /resume start a new session with the same middlewares

    def before_model(self, state: AgentState) -> None:
        # a call that is not sent the history (the fixer's own prompts) needs none of it shortened: the
        # next call that is sent it compresses it (a summary before each fixer call was a hidden model call
        # of minutes, and it evicted the fixer's prompt from the KV cache)
        if not self.settings.enabled or not state.sends_history:
            return
        used = self.tokens(state)
        if used < self.limit or used < self._retry_above:
            return
        self.compress(state, force=False)

    def compress(self, state: AgentState, *, force: bool = True) -> CompressionReport:
        before = self.tokens(state)
        split = choose_split(state.history, self.meter, self.settings.keep_recent)
        if split == 0:
            return self._report(CompressionReport("nothing_to_compress", before, before))
        if self.on_pre_compress:
            self.on_pre_compress("manual" if force else "auto", before)
        masked = mask_old_tool_outputs(
            state.history,
            split,
            self.meter,
            min_tokens=self.settings.mask_tool_output_tokens,
            folder=self.outputs_dir / state.session_id,
        )
        after_mask = self.tokens(state)
        if masked and not force and after_mask < self.limit:
            return self._report(CompressionReport("masked", before, after_mask, masked=masked))
        return self._summarise(state, split, before, masked)

    def _summarise(self, state: AgentState, split: int, before: int, masked: int) -> CompressionReport:
        current = self.tokens(state)
        start = leading_system(state.history)
        older = state.history[start:split]
        original = previous_original_request(older) or _first_user_text(older)
        files, actions = tool_facts(older)
        snapshot, detail = self._ask_summary(state, older, original)
        text = render_snapshot(
            snapshot,
            original_request=original,
            files=files,
            actions=actions,
            approved_plan=state.approved_plan,
        )
        tail = state.history[split:]
        bridge = [Message.internal(text)]
        if tail and tail[0].role == "user":
            bridge.append(Message.assistant(ACK))
        candidate = state.history[:start] + bridge + tail
        after = self.meter.history(candidate) + self.fixed_tokens
        if after >= current:
            self._retry_above = int(current * 1.1)
            return self._report(
                CompressionReport(
                    "rejected", before, current, masked, 0, "the summary did not shrink the history"
                )
            )
        state.history[:] = candidate
        # still over the limit (a large recent tail): wait for real growth instead of compressing every turn
        self._retry_above = after + int(0.1 * self.limit) if after >= self.limit else 0
        return self._report(CompressionReport("compressed", before, after, masked, len(older), detail))

    def _ask_summary(
        self, state: AgentState, older: list[Message], original: str
    ) -> tuple[StateSnapshot, str]:
        """The utility model's snapshot; when it fails, one built from the tool calls alone."""
        try:
            model = resolve_provider(self.summarizer)
            assert model is not None
            room = model.context_window - self.settings.summary_max_tokens - 700
            history = transcript(older, budget_chars=max(1000, room * 3))
            prompt = render(
                "acode.agent",
                "compress.j2",
                history=history,
                original_request=original[:1500],
                approved_plan=str(state.approved_plan or ""),
            )
            snapshot = complete_json(
                model, [Message.user(prompt)], StateSnapshot, max_tokens=self.settings.summary_max_tokens
            )
            return snapshot, "summarised by the model"
        except AcodeError as exc:
            log.info(  # the compression still happens: the log, not the chat
                "compression: the summary model failed (%s); keeping a snapshot of the tool calls only", exc
            )
            goal = original.strip().splitlines()[0][:300] if original.strip() else "continue the task"
            return StateSnapshot(overall_goal=goal), f"model failed, facts only: {exc.message[:200]}"

    def _report(self, report: CompressionReport) -> CompressionReport:
        self.reports.append(report)
        log.info(
            "compression %s: %d -> %d tokens (masked %d, summarised %d messages) %s",
            report.status,
            report.tokens_before,
            report.tokens_after,
            report.masked,
            report.summarised_messages,
            report.detail,
        )
        return report


def _first_user_text(messages: list[Message]) -> str:
    return next((m.content for m in messages if m.role == "user"), "")
