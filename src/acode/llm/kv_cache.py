"""The KV cache of the embedded model, reused across calls in whole aligned chunks.

Determinism with a cache: llama.cpp's CPU kernels give slightly different numbers for a token depending
on how many tokens were evaluated with it in one batch, and a 0.3 logit difference is enough to change a
greedy answer. So prompts are always evaluated in chunks aligned to fixed positions (every CHUNK tokens),
and only whole aligned chunks are reused: the KV cache then holds exactly what a fresh evaluation would
compute, and the same input gives the same output whatever ran before. The price is re-reading up to
CHUNK-1 tokens and the previous answer (generated one token at a time) on each call.
"""

from __future__ import annotations

import time
from typing import Any

from acode.errors import ModelError, ModelTimeoutError

CHUNK = 64  # prompt tokens per evaluation batch, aligned to multiples of CHUNK


class AlignedCache:
    """The cache of one llama context (callers hold the model's lock)."""

    def __init__(self, llm: Any, name: str):
        self.llm = llm
        self.name = name
        self.whole_chunks = 0  # leading cached tokens evaluated in whole aligned chunks (safe to reuse)

    def reuse_prefix(self, tokens: list[int]) -> int:
        """Keep the whole aligned chunks of the cache that ``tokens`` starts with. The last prompt token
        is always evaluated because its logits start the answer."""
        llm = self.llm
        cached = llm.input_ids[: llm.n_tokens].tolist()
        common = 0
        for old, new in zip(cached, tokens):
            if old != new:
                break
            common += 1
        reuse = min(common, self.whole_chunks, len(tokens) - 1)
        reuse -= reuse % CHUNK
        if reuse > 0 and llm._ctx.kv_cache_seq_rm(-1, reuse, -1):
            llm.n_tokens = reuse
        else:
            llm.reset()
            reuse = 0
        self.whole_chunks = reuse
        return reuse

    def evaluate(self, tokens: list[int], start: int, deadline: float | None, timeout: float | None) -> None:
        """Run the new prompt tokens (from position ``start``, a multiple of CHUNK) chunk by chunk, so a
        timeout can stop a long prompt and every chunk boundary falls on a multiple of CHUNK."""
        for offset in range(0, len(tokens), CHUNK):
            check_deadline(self.name, deadline, timeout, "reading the prompt")
            chunk = tokens[offset : offset + CHUNK]
            try:
                self.llm.eval(chunk)
            except RuntimeError as exc:
                self.llm.reset()
                self.whole_chunks = 0
                raise ModelError(
                    "ACODE-MODEL-022", f"llama.cpp failed to evaluate the prompt: {exc}"
                ) from None
            if len(chunk) == CHUNK:
                self.whole_chunks = start + offset + CHUNK

    def evaluate_with_logits(
        self, tokens: list[int], start: int, deadline: float | None, timeout: float | None
    ) -> list[Any]:
        """Like ``evaluate`` (same aligned chunks), keeping the logits of every evaluated position."""
        import numpy as np

        llm = self.llm
        rows: list[Any] = []
        for offset in range(0, len(tokens), CHUNK):
            check_deadline(self.name, deadline, timeout, "scoring text")
            chunk = tokens[offset : offset + CHUNK]
            past = llm.n_tokens
            llm._ctx.kv_cache_seq_rm(-1, past, -1)  # as Llama.eval does: drop anything cached from here on
            llm._batch.set_batch(batch=chunk, n_past=past, logits_all=True)
            try:
                llm._ctx.decode(llm._batch)
            except RuntimeError as exc:
                llm.reset()
                self.whole_chunks = 0
                raise ModelError("ACODE-MODEL-022", f"llama.cpp failed to evaluate the text: {exc}") from None
            llm.input_ids[past : past + len(chunk)] = chunk
            llm.n_tokens += len(chunk)
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(chunk) * llm.n_vocab(),))
            rows.extend(logits.reshape(len(chunk), llm.n_vocab()).copy())
            if len(chunk) == CHUNK:
                self.whole_chunks = start + offset + CHUNK
        return rows


def row_logprob(row: Any, token: int) -> float:
    """The log-probability of ``token`` in one row of logits."""
    import numpy as np

    logits = row.astype(np.float64)
    peak = logits.max()
    return float(logits[token] - peak - np.log(np.exp(logits - peak).sum()))


def check_deadline(name: str, deadline: float | None, timeout: float | None, doing: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise ModelTimeoutError(
            "ACODE-MODEL-023",
            f"{name} timed out after {timeout:g} s while {doing}",
            hint="raise the timeout (model.timeout_seconds), lower max_tokens, or use a smaller model",
        )
