"""What a person said in a conversation: the words shown as theirs in titles and on resume."""

from __future__ import annotations

from collections.abc import Sequence

from acode.agent.session.at_refs import typed_text
from acode.audience import model_directed
from acode.llm.types import Message
from acode.store.sessions import SessionInfo, SessionStore

TITLE_CHARS = 80


def person_words(message: Message) -> str | None:
    """The words the person typed for this message (their command for a note acode wrote in their
    place), or None when no person wrote it: not a user message, or acode's own message to the model.
    Sessions recorded before ``Message.shown`` existed are read by their wording."""
    if message.role != "user":
        return None
    if message.shown is not None:
        return typed_text(message.shown) or None
    said = typed_text(message.content)  # without the files their @references attached
    return None if model_directed(said) or _loop_json(said) else said


def first_words(history: Sequence[Message]) -> str | None:
    return next((said for m in history if (said := person_words(m))), None)


def last_said(history: Sequence[Message]) -> int | None:
    """The index of the last message the person said, or None."""
    return next((i for i in range(len(history) - 1, -1, -1) if person_words(history[i])), None)


def title_of(store: SessionStore, info: SessionInfo) -> str:
    """A session's title as a person reads it: for a session recorded before acode's notes were marked,
    whose stored title is one of them, the first words the person said."""
    if not model_directed(info.title):
        return info.title
    return " ".join((first_words(store.load_messages(info.id)) or "").split())[:TITLE_CHARS]


def _loop_json(text: str) -> bool:
    return text.startswith('{"error": ')  # the loop's reply to an answer it could not read
