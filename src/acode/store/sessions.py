"""Agent sessions in SQLite: one row per session, its messages and its events, each written the moment
it is produced (autocommit, WAL), so a crash or a kill loses at most the step in flight.

Everything is written through acode.secrets (messages, tool arguments and outputs, events, titles):
the database never holds a secret that passed through a session.

Messages are kept per *epoch*: when a middleware rewrites the history (compression), the new history
is written as the next epoch and loading returns the newest one; the older epochs stay for audit.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acode.errors import AcodeError
from acode.llm.types import Message
from acode.secrets import redact, redact_data
from acode.shown import undecodable_escaped
from acode.store.db import connect, ensure_schema

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    model TEXT NOT NULL DEFAULT '',
    approval_mode TEXT NOT NULL DEFAULT 'default',
    status TEXT NOT NULL DEFAULT 'active',
    epoch INTEGER NOT NULL DEFAULT 0,
    turns INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS session_messages (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    epoch INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    body TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (session_id, epoch, seq)
);
CREATE TABLE IF NOT EXISTS session_events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS session_events_by_session ON session_events(session_id, id);
CREATE INDEX IF NOT EXISTS sessions_by_updated ON sessions(updated);
"""


class SessionNotFound(AcodeError):
    pass


@dataclass
class SessionInfo:
    id: str
    workspace: str
    title: str
    model: str
    approval_mode: str
    status: str
    epoch: int
    turns: int
    prompt_tokens: int
    completion_tokens: int
    created: float
    updated: float
    messages: int = 0

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _stored(message: Message) -> str:
    """The message as stored: its JSON with every string redacted."""
    return _json(message.model_dump(mode="json", exclude_defaults=True))


def _json(data: Any) -> str:
    """Redacted JSON text SQLite can store: bytes of a file name that are not UTF-8 (lone surrogates) are
    kept as JSON escapes, and come back as they were."""
    text = json.dumps(redact_data(data), ensure_ascii=False)
    return text if undecodable_escaped(text) is text else json.dumps(redact_data(data))


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]


class SessionStore:
    def __init__(self, db_path: Path):
        self.db_path = db_path
        self.conn = connect(db_path)
        ensure_schema(self.conn, db_path, "sessions", SCHEMA)

    def close(self) -> None:
        self.conn.close()

    # -- writing -----------------------------------------------------------------------------
    def create(
        self, workspace: Path, *, model: str = "", approval_mode: str = "default", title: str = ""
    ) -> str:
        session_id = new_session_id()
        now = time.time()
        self.conn.execute(
            "INSERT INTO sessions (id, workspace, title, model, approval_mode, created, updated)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (session_id, undecodable_escaped(str(workspace)), redact(undecodable_escaped(title)), model,
             approval_mode, now, now),
        )
        return session_id

    def append_messages(self, session_id: str, epoch: int, first_seq: int, messages: list[Message]) -> None:
        now = time.time()
        rows = [(session_id, epoch, first_seq + i, m.role, _stored(m), now) for i, m in enumerate(messages)]
        with self.conn:  # one transaction for the batch
            self.conn.executemany(
                "INSERT OR REPLACE INTO session_messages (session_id, epoch, seq, role, body, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            self.conn.execute("UPDATE sessions SET updated = ? WHERE id = ?", (now, session_id))

    def replace_history(self, session_id: str, messages: list[Message]) -> int:
        """Write ``messages`` as a new epoch (the history was rewritten); returns that epoch."""
        epoch = self.get(session_id).epoch + 1
        self.conn.execute("UPDATE sessions SET epoch = ? WHERE id = ?", (epoch, session_id))
        self.append_messages(session_id, epoch, 0, messages)
        return epoch

    def add_event(self, session_id: str, kind: str, data: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO session_events (session_id, kind, data, created) VALUES (?, ?, ?, ?)",
            (
                session_id,
                kind,
                _json(json.loads(json.dumps(data, default=str))),
                time.time(),
            ),
        )

    def update(self, session_id: str, **fields: Any) -> None:
        allowed = {"title", "model", "approval_mode", "status", "turns", "prompt_tokens", "completion_tokens"}
        unknown = set(fields) - allowed
        if unknown:
            raise ValueError(f"unknown session fields: {sorted(unknown)}")
        if "title" in fields:
            fields["title"] = redact(undecodable_escaped(fields["title"]))
        fields["updated"] = time.time()
        assignments = ", ".join(f"{name} = ?" for name in fields)
        self.conn.execute(f"UPDATE sessions SET {assignments} WHERE id = ?", (*fields.values(), session_id))

    def add_usage(self, session_id: str, *, turns: int, prompt_tokens: int, completion_tokens: int) -> None:
        self.conn.execute(
            "UPDATE sessions SET turns = turns + ?, prompt_tokens = prompt_tokens + ?,"
            " completion_tokens = completion_tokens + ?, updated = ? WHERE id = ?",
            (turns, prompt_tokens, completion_tokens, time.time(), session_id),
        )

    # -- reading -----------------------------------------------------------------------------
    def list(self, limit: int = 50) -> list[SessionInfo]:
        rows = self.conn.execute(
            "SELECT s.*, (SELECT COUNT(*) FROM session_messages m WHERE m.session_id = s.id AND m.epoch = "
            "s.epoch)"
            " AS messages FROM sessions s ORDER BY updated DESC, created DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [SessionInfo(**dict(row)) for row in rows]

    def get(self, session_id: str) -> SessionInfo:
        row = self.conn.execute(
            "SELECT s.*, (SELECT COUNT(*) FROM session_messages m WHERE m.session_id = s.id AND m.epoch = "
            "s.epoch)"
            " AS messages FROM sessions s WHERE id = ?",
            (session_id,),
        ).fetchone()
        if row is None:
            raise SessionNotFound(
                "ACODE-SESSION-001",
                f"no session '{session_id}' in {self.db_path}",
                hint="`acode sessions list` shows the sessions of this project",
            )
        return SessionInfo(**dict(row))

    def resolve(self, ref: str) -> SessionInfo:
        """``latest``, a full id, or a unique prefix of one."""
        if ref == "latest":
            sessions = self.list(limit=1)
            if not sessions:
                raise SessionNotFound(
                    "ACODE-SESSION-002",
                    f"there is no session to resume in {self.db_path}",
                    hint="start one with `acode` or `acode -p '...'`",
                )
            return sessions[0]
        rows = self.conn.execute(
            "SELECT id FROM sessions WHERE id LIKE ? ORDER BY id", (ref + "%",)
        ).fetchall()
        if len(rows) > 1 and not any(r["id"] == ref for r in rows):
            raise SessionNotFound(
                "ACODE-SESSION-003",
                f"'{ref}' matches {len(rows)} sessions: {', '.join(r['id'] for r in rows[:5])}",
                hint="give more of the id",
            )
        return self.get(rows[0]["id"] if len(rows) == 1 else ref)

    def load_messages(self, session_id: str) -> list[Message]:
        epoch = self.get(session_id).epoch
        rows = self.conn.execute(
            "SELECT body FROM session_messages WHERE session_id = ? AND epoch = ? ORDER BY seq",
            (session_id, epoch),
        ).fetchall()
        return [Message.model_validate_json(row["body"]) for row in rows]

    def events(self, session_id: str, kind: str | None = None) -> list[dict[str, Any]]:
        query = "SELECT kind, data, created FROM session_events WHERE session_id = ?"
        params: tuple[Any, ...] = (session_id,)
        if kind is not None:
            query += " AND kind = ?"
            params += (kind,)
        rows = self.conn.execute(query + " ORDER BY id", params).fetchall()
        return [{"kind": r["kind"], "created": r["created"], **json.loads(r["data"])} for r in rows]
