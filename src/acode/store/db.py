"""One SQLite connection per use, in WAL mode; each store module declares the tables it needs."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

_ensured: set[tuple[str, str]] = set()
_lock = threading.Lock()


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def ensure_schema(conn: sqlite3.Connection, db_path: Path, name: str, ddl: str) -> None:
    """Run a store module's ``CREATE TABLE IF NOT EXISTS`` script once per database file and process."""
    key = (str(db_path.resolve()), name)
    with _lock:
        if key in _ensured:
            return
        conn.executescript(ddl)
        _ensured.add(key)
