"""A ChatModel wrapper that adds up the tokens of every call (evaluated vs reused from the KV cache)."""

from __future__ import annotations

import threading
from typing import Any

from acode.llm.protocol import ChatModel
from acode.llm.types import Completion
from acode.review.models import TokenStats


class MeteredModel:
    def __init__(self, model: ChatModel):
        self.inner = model
        self.name = model.name
        self.context_window = model.context_window
        self.stats = TokenStats()
        self._lock = threading.Lock()

    def complete(self, messages, **kwargs: Any) -> Completion:
        completion = self.inner.complete(messages, **kwargs)
        with self._lock:
            self.stats.add(completion.usage)
        return completion

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)
