"""Run summaries of ``acode run``: one row per session, the full summary kept as JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acode.store.db import connect, ensure_schema

_DDL = """
CREATE TABLE IF NOT EXISTS run_summaries (
    session_id   TEXT PRIMARY KEY,
    task         TEXT NOT NULL,
    status       TEXT NOT NULL,
    decision     TEXT,
    exit_code    INTEGER NOT NULL,
    cycles       INTEGER NOT NULL DEFAULT 0,
    started_at   TEXT NOT NULL,
    ended_at     TEXT,
    duration_s   REAL,
    data         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS run_summaries_started ON run_summaries(started_at);
"""


class SummaryStore:
    def __init__(self, db_path: Path):
        self.db_path = db_path

    def _conn(self):
        conn = connect(self.db_path)
        ensure_schema(conn, self.db_path, "run_summaries", _DDL)
        return conn

    def save(self, summary: dict[str, Any]) -> None:
        """Insert or replace the summary of ``summary["session_id"]``."""
        conn = self._conn()
        try:
            conn.execute(
                "INSERT OR REPLACE INTO run_summaries (session_id, task, status, decision, exit_code, cycles,"
                " started_at, ended_at, duration_s, data) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (
                    summary["session_id"],
                    summary["task"],
                    summary["status"],
                    summary.get("decision"),
                    int(summary.get("exit_code", 1)),
                    int(summary.get("cycles", 0)),
                    summary["started_at"],
                    summary.get("ended_at"),
                    summary.get("duration_s"),
                    json.dumps(summary, ensure_ascii=False, default=str),
                ),
            )
        finally:
            conn.close()

    def get(self, session_id: str) -> dict[str, Any] | None:
        """One summary by full session id or a unique prefix of it."""
        conn = self._conn()
        try:
            rows = conn.execute(
                "SELECT data FROM run_summaries WHERE session_id LIKE ? ORDER BY started_at DESC LIMIT 2",
                (session_id.replace("%", "") + "%",),
            ).fetchall()
        finally:
            conn.close()
        if len(rows) != 1:
            exact = [r for r in rows if json.loads(r["data"])["session_id"] == session_id]
            rows = exact
        return json.loads(rows[0]["data"]) if len(rows) == 1 else None

    def latest(self) -> dict[str, Any] | None:
        rows = self.list(limit=1)
        return rows[0] if rows else None

    def list(self, limit: int | None = None) -> list[dict[str, Any]]:
        """Summaries, newest first."""
        conn = self._conn()
        try:
            sql = "SELECT data FROM run_summaries ORDER BY started_at DESC"
            rows = conn.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ()).fetchall()
        finally:
            conn.close()
        return [json.loads(r["data"]) for r in rows]
