"""One SQLite connection per use, in WAL mode; each store module declares the tables it needs.

SQLite failures become ACODE errors with a way out (a damaged or foreign file, a database another
process keeps locked, a full or read-only disk), never a traceback."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

from acode.errors import AcodeError
from acode.fsutil import PRIVATE_MODE, make_private
from acode.paths import ensure_runtime_ignore

_ensured: set[tuple[str, str]] = set()
_lock = threading.Lock()
BUSY_TIMEOUT_S = 30.0  # how long a statement waits for another process's lock (ACODE_DB_TIMEOUT overrides)


def busy_timeout() -> float:
    try:
        return float(os.environ.get("ACODE_DB_TIMEOUT", BUSY_TIMEOUT_S))
    except ValueError:
        return BUSY_TIMEOUT_S


class DatabaseError(AcodeError):
    pass


def database_error(path: Path, exc: sqlite3.Error) -> DatabaseError:
    """The ACODE error for a SQLite failure on ``path``."""
    text = str(exc)
    if "locked" in text or "busy" in text:
        return DatabaseError(
            "ACODE-DB-002", f"{path} stayed locked by another process for {busy_timeout():g} s",
            hint="wait for the other acode command to finish (or stop it) and try again",
        )
    if isinstance(exc, sqlite3.DatabaseError) and (
        "not a database" in text or "malformed" in text or "corrupt" in text
    ):
        return DatabaseError(
            "ACODE-DB-001",
            f"{path} is not a usable acode database ({text})",
            hint=f"move it aside (`mv {path} {path}.broken`); acode starts a new one (sessions and reviews "
                 "in it "
            "are then no longer listed)",
        )
    return DatabaseError(
        "ACODE-DB-003",
        f"the database {path} failed: {text}",
        hint="check that the disk is not full and the folder is writable",
    )


class _Connection(sqlite3.Connection):
    """A connection whose statements raise ``DatabaseError`` instead of sqlite3 exceptions."""

    acode_path: Path = Path("acode.db")

    def execute(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        try:
            return super().execute(*args, **kwargs)
        except sqlite3.Error as exc:
            raise database_error(self.acode_path, exc) from None

    def executemany(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        try:
            return super().executemany(*args, **kwargs)
        except sqlite3.Error as exc:
            raise database_error(self.acode_path, exc) from None

    def executescript(self, *args: Any, **kwargs: Any) -> sqlite3.Cursor:
        try:
            return super().executescript(*args, **kwargs)
        except sqlite3.Error as exc:
            raise database_error(self.acode_path, exc) from None

    def __exit__(self, *args: object) -> Any:
        try:
            return super().__exit__(*args)
        except sqlite3.Error as exc:
            raise database_error(self.acode_path, exc) from None


def connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    ensure_runtime_ignore(path.parent)
    _private(path)
    try:
        conn = sqlite3.connect(
            str(path),
            timeout=busy_timeout(),
            isolation_level=None,
            check_same_thread=False,
            factory=_Connection,
        )
    except sqlite3.Error as exc:
        raise database_error(path, exc) from None
    conn.acode_path = path
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
    except DatabaseError:
        conn.close()
        raise
    return conn


def _private(path: Path) -> None:
    """The database holds sessions, prompts and reviews: created 0600, an existing one tightened with its
    ``-wal`` and ``-shm`` (SQLite creates those with the database's own mode)."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_MODE))
    except OSError:
        return  # not creatable here: sqlite3 says why, as an ACODE-DB error
    for file in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        make_private(file)


def ensure_schema(conn: sqlite3.Connection, db_path: Path, name: str, ddl: str) -> None:
    """Run a store module's ``CREATE TABLE IF NOT EXISTS`` script once per database file and process."""
    key = (str(db_path.resolve()), name)
    with _lock:
        if key in _ensured:
            return
        conn.executescript(ddl)
        _ensured.add(key)
