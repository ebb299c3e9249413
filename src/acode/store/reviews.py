"""Every review is stored: what was reviewed (context hash, base/head), with what (model, settings), the
dimensions, findings and decision, how long it took and the tokens evaluated vs reused. Reviews made
inside `acode run` are stored here too (``source="run"``). Secrets are redacted before anything is kept."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acode.review.models import ReviewResult
from acode.secrets import redact_data
from acode.store.db import connect, ensure_schema

DDL = """
CREATE TABLE IF NOT EXISTS reviews (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT 'review',
    target TEXT NOT NULL,
    context_hash TEXT NOT NULL,
    settings_hash TEXT NOT NULL,
    base_ref TEXT, base_sha TEXT, head_ref TEXT, head_sha TEXT,
    model TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    dimensions_json TEXT NOT NULL,
    findings_json TEXT NOT NULL,
    decision TEXT NOT NULL,
    status TEXT NOT NULL,
    duration_seconds REAL NOT NULL,
    tokens_evaluated INTEGER NOT NULL,
    tokens_reused INTEGER NOT NULL,
    result_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_by_context ON reviews (context_hash, settings_hash);
"""


@dataclass
class StoredReview:
    id: int
    created_at: str
    source: str
    result: ReviewResult
    settings: dict[str, Any]


_NOT_AFFECTING = ("human_review", "reuse_unchanged", "timeout_seconds")


def settings_hash(settings: dict[str, Any]) -> str:
    """What makes two reviews of the same context comparable: the settings that change the result
    (callers include the model's identity in ``settings``)."""
    reviewer = {k: v for k, v in (settings.get("reviewer") or {}).items() if k not in _NOT_AFFECTING}
    payload = json.dumps({**settings, "reviewer": reviewer}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


class ReviewStore:
    def __init__(self, db_path: Path):
        self.path = db_path
        self._conn = connect(db_path)
        ensure_schema(self._conn, db_path, "reviews", DDL)

    def close(self) -> None:
        self._conn.close()

    def save(self, result: ReviewResult, settings: dict[str, Any], *, source: str = "review") -> int:
        data = redact_data(result.model_dump(mode="json"))
        kept_settings = redact_data(settings)
        cursor = self._conn.execute(
            "INSERT INTO reviews (created_at, source, target, context_hash, settings_hash, base_ref, "
            "base_sha,"
            " head_ref, head_sha, model, settings_json, dimensions_json, findings_json, decision, status,"
            " duration_seconds, tokens_evaluated, tokens_reused, result_json)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                datetime.now(UTC).isoformat(timespec="seconds"),
                source,
                result.target,
                result.context_hash,
                settings_hash(settings),
                result.base_ref,
                result.base_sha,
                result.head_ref,
                result.head_sha,
                result.model,
                json.dumps(kept_settings),
                json.dumps(data["dimensions"]),
                json.dumps(data["evidence"] + [f for d in data["dimensions"] for f in d["findings"]]),
                result.decision.verdict,
                result.status,
                result.duration_seconds,
                result.tokens.evaluated,
                result.tokens.reused,
                json.dumps(data),
            ),
        )
        return int(cursor.lastrowid)

    def find_same(self, context_hash: str, settings: dict[str, Any]) -> StoredReview | None:
        """The newest complete review of the same context with the same settings (model included)."""
        row = self._conn.execute(
            "SELECT * FROM reviews WHERE context_hash=? AND settings_hash=? AND status='complete'"
            " ORDER BY id DESC LIMIT 1",
            (context_hash, settings_hash(settings)),
        ).fetchone()
        return self._load(row)

    def get(self, review_id: int | None = None) -> StoredReview | None:
        """One review by id, or the newest when ``review_id`` is None."""
        if review_id is None:
            row = self._conn.execute("SELECT * FROM reviews ORDER BY id DESC LIMIT 1").fetchone()
        else:
            row = self._conn.execute("SELECT * FROM reviews WHERE id=?", (review_id,)).fetchone()
        return self._load(row)

    def history(self, limit: int = 20) -> list[dict[str, Any]]:
        rows = self._conn.execute(
            "SELECT id, created_at, source, target, base_ref, head_ref, head_sha, model, decision, status,"
            " duration_seconds, tokens_evaluated, tokens_reused FROM reviews ORDER BY id DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [dict(row) for row in rows]

    def _load(self, row: Any) -> StoredReview | None:
        if row is None:
            return None
        return StoredReview(
            id=row["id"],
            created_at=row["created_at"],
            source=row["source"],
            result=ReviewResult.model_validate_json(row["result_json"]),
            settings=json.loads(row["settings_json"]),
        )
