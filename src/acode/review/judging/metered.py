"""A ChatModel wrapper that adds up the tokens of every call (evaluated vs reused from the KV cache) and
measures the model's speed for the review's time plan."""

from __future__ import annotations

import threading
from typing import Any

from acode.llm.protocol import ChatModel
from acode.llm.types import Completion
from acode.review.judging.time_plan import Pace
from acode.review.models import TokenStats


class MeteredModel:
    def __init__(self, model: ChatModel, pace: Pace | None = None):
        self.inner = model
        self.pace = pace or Pace(prompt_prior=50.0, generate_prior=8.0)
        self.name = model.name
        self.context_window = model.context_window
        self.stats = TokenStats()
        self._lock = threading.Lock()

    def complete(self, messages, **kwargs: Any) -> Completion:
        completion = self.inner.complete(messages, **kwargs)
        self.record(completion.usage)
        return completion

    def record(self, usage) -> None:
        """Count a call made through the inner model directly (e.g. text scoring)."""
        with self._lock:
            self.stats.add(usage)
            self.pace.observe(usage)

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)
