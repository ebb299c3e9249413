"""``model.backend: none``: no model at all, for a review whose checks are all it runs (a CI job or a hook
without llama.cpp or a server). Every model call fails with ``NoModelError``; a review then decides on its
checks and names the model steps it left out (acode.review.running.findings_strategy)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acode.errors import ModelNotInstalledError
from acode.llm.types import Completion, Message


class NoModelError(ModelNotInstalledError):
    """A model call where the settings say there is no model."""


class NoModel:
    name = "none"

    def __init__(self, context_window: int = 8192) -> None:
        self.context_window = context_window

    def complete(self, messages: Sequence[Message], **kwargs: Any) -> Completion:
        raise NoModelError("ACODE-MODEL-013", "no model is configured (model.backend: none)",
                           hint="set model.backend to embedded (pip install 'acode[local]') or to openai "
                                "with model.base_url, your server")

    def count_tokens(self, text: str) -> int:
        return (len(text) + 3) // 4  # about 4 characters a token: only packing reads it, for no model
