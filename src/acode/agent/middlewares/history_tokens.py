"""Measuring a history in the model's own tokens (cached per message), choosing where to split it, and
masking large old tool outputs (the full text goes to a file, the model keeps a preview and the path)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from acode.llm.types import Message
from acode.tools.output_budget import save_redacted

MESSAGE_OVERHEAD = 4  # role markers and separators of a chat template
MASK_MARKER = "[output masked to save context"


class TokenMeter:
    """Tokens per message, cached by identity (history entries are replaced, never edited in place)
    and then by content."""

    def __init__(self, count: Callable[[str], int], cache_size: int = 4096):
        self._count = count
        self._cache: dict[str, int] = {}
        self._by_identity: dict[int, tuple[Message, int]] = {}
        self._cache_size = cache_size

    def message(self, message: Message) -> int:
        seen = self._by_identity.get(id(message))
        if seen is not None and seen[0] is message:  # the same object as last turn: no hashing at all
            return seen[1]
        tokens = self._by_content(message)
        if len(self._by_identity) >= self._cache_size:
            self._by_identity.clear()
        self._by_identity[id(message)] = (message, tokens)
        return tokens

    def _by_content(self, message: Message) -> int:
        text = message.content
        if message.tool_calls:
            text += json.dumps([c.model_dump(exclude={"id"}) for c in message.tool_calls])
        key = hashlib.blake2b(f"{message.role}\x00{text}".encode(), digest_size=12).hexdigest()
        cached = self._cache.get(key)
        if cached is None:
            if len(self._cache) >= self._cache_size:
                self._cache.clear()
            cached = self._cache[key] = self._count(text) + MESSAGE_OVERHEAD
        return cached

    def history(self, messages: list[Message]) -> int:
        return sum(self.message(m) for m in messages)


def leading_system(messages: list[Message]) -> int:
    """How many system messages open the history (they are never compressed)."""
    n = 0
    while n < len(messages) and messages[n].role == "system":
        n += 1
    return n


def choose_split(messages: list[Message], meter: TokenMeter, keep_fraction: float) -> int:
    """Index where the verbatim tail starts: the newest ~``keep_fraction`` of the tokens.

    A real user turn is preferred; when the nearest one would keep far too much or too little (a long
    task from one prompt has a single user turn), the start of an assistant turn is used, so a tool
    call is never separated from its result. Returns 0 when nothing can be split off.
    """
    start = leading_system(messages)
    sizes = [meter.message(m) for m in messages]
    total = sum(sizes[start:])
    target = keep_fraction * total
    tail = [0] * (len(messages) + 1)
    for i in range(len(messages) - 1, -1, -1):
        tail[i] = tail[i + 1] + sizes[i]
    candidates = range(start + 1, len(messages))  # at least one message is summarised
    users = [i for i in candidates if messages[i].role == "user"]
    near = [i for i in users if 0.5 * target <= tail[i] <= 1.5 * target]
    if near:
        return min(near, key=lambda i: abs(tail[i] - target))
    turns = [i for i in candidates if messages[i].role in ("user", "assistant")]
    if not turns:
        return 0
    return min(turns, key=lambda i: abs(tail[i] - target))


def mask_old_tool_outputs(
    messages: list[Message],
    end: int,
    meter: TokenMeter,
    *,
    min_tokens: int,
    folder: Path,
    preview_chars: int = 500,
) -> int:
    """Replace tool outputs before ``end`` that exceed ``min_tokens`` by a preview and the file holding
    the full text. Returns how many were masked."""
    masked = 0
    for i in range(end):
        message = messages[i]
        if message.role != "tool" or MASK_MARKER in message.content or meter.message(message) <= min_tokens:
            continue
        name = f"{message.tool_call_id or f'message-{i}'}.txt"
        path = folder / name
        save_redacted(path, message.content)
        preview = message.content[:preview_chars].rstrip()
        note = (
            f"{preview}\n{MASK_MARKER}: {meter.message(message)} tokens; the full output is in {path} "
            "(read it with read_file if you need it again)]"
        )
        messages[i] = message.model_copy(update={"content": note})
        masked += 1
    return masked
