"""The audit log: every override of a review rejection (with its reason, time and the rejected review)
and every human decision taken inside ``acode run``. Rows are only ever appended."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from acode.store.db import connect, ensure_schema

AuditKind = Literal["override", "human_decision"]

_DDL = """
CREATE TABLE IF NOT EXISTS audit_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    at          TEXT NOT NULL,
    kind        TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    actor       TEXT NOT NULL,
    decision    TEXT NOT NULL,
    reason      TEXT NOT NULL DEFAULT '',
    review      TEXT
);
CREATE INDEX IF NOT EXISTS audit_log_session ON audit_log(session_id);
"""


class AuditLog:
    def __init__(self, db_path: Path):
        self.db_path = db_path

    def _conn(self):
        conn = connect(self.db_path)
        ensure_schema(conn, self.db_path, "audit_log", _DDL)
        return conn

    def append(
        self,
        kind: AuditKind,
        session_id: str,
        decision: str,
        *,
        reason: str = "",
        actor: str = "",
        review: dict[str, Any] | None = None,
    ) -> int:
        if kind == "override" and not reason.strip():
            raise ValueError("an override needs a non-empty reason")
        conn = self._conn()
        try:
            cur = conn.execute(
                "INSERT INTO audit_log (at, kind, session_id, actor, decision, reason, review) VALUES "
                "(?,?,?,?,?,?,?)",
                (
                    datetime.now(UTC).isoformat(timespec="seconds"),
                    kind,
                    session_id,
                    actor or _current_user(),
                    decision,
                    reason.strip(),
                    json.dumps(review, ensure_ascii=False, default=str) if review is not None else None,
                ),
            )
            return int(cur.lastrowid)
        finally:
            conn.close()

    def entries(self, session_id: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Entries, newest first."""
        where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
        sql = f"SELECT * FROM audit_log {where} ORDER BY id DESC" + (" LIMIT ?" if limit else "")
        conn = self._conn()
        try:
            rows = conn.execute(sql, [*params, *([limit] if limit else [])]).fetchall()
        finally:
            conn.close()
        out = []
        for row in rows:
            entry = dict(row)
            entry["review"] = json.loads(entry["review"]) if entry["review"] else None
            out.append(entry)
        return out


def _current_user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name here (containers without a passwd entry)
        return "unknown"
