"""An optional backend capability: how likely the model finds a piece of text after a prefix.

The reviewer's regression check compares the old and the new version of changed code by the model's own
log-likelihood of each (a code model finds a wrong line less probable than the line it replaced, given
the documentation and the code around it). Only backends that can return prompt-token log-probabilities
implement ``score_text``: the embedded llama.cpp model does; callers ask ``scorer_of(model)`` and fall
back to a yes/no question when it returns None. (The OpenAI-compatible backend does not: llama-cpp-python's
server returns implausible prompt log-probabilities with ``echo``, and no other server can be tested here.)
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from acode.llm.types import Usage


class TextScore(BaseModel):
    """Log-probability (natural log) of each token of the scored text, given the prefix."""

    tokens: list[str] = Field(default_factory=list)
    logprobs: list[float] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)

    @property
    def total(self) -> float:
        return float(sum(self.logprobs))

    @property
    def mean(self) -> float:
        return self.total / len(self.logprobs) if self.logprobs else 0.0

    def by_line(self) -> list[tuple[str, float, int]]:
        """(line text, summed log-probability, tokens) for each line of the scored text."""
        lines: list[tuple[str, float, int]] = []
        text, total, count = "", 0.0, 0
        for token, logprob in zip(self.tokens, self.logprobs):
            for i, part in enumerate(token.split("\n")):
                if i > 0:
                    lines.append((text, total, count))
                    text, total, count = "", 0.0, 0
                text += part
            total += logprob
            count += 1
        if text or count:
            lines.append((text, total, count))
        return lines


@runtime_checkable
class TextScorer(Protocol):
    def score_text(self, prefix: str, text: str, *, timeout: float | None = None) -> TextScore:
        """Log-probabilities of ``text``'s tokens following ``prefix`` (raw text, no chat template)."""
        ...


def scorer_of(model: object) -> TextScorer | None:
    """The model itself (or the model a wrapper such as MeteredModel holds) when it can score text."""
    seen = 0
    while model is not None and seen < 5:
        if isinstance(model, TextScorer):
            return model
        model = getattr(model, "inner", None)
        seen += 1
    return None
