"""The JSON-lines event log of one run (.acode/runs/<session>/events.jsonl). Every line is one event with
its time, type and fields; secrets are redacted before anything is written."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from acode.fsutil import open_private
from acode.secrets import redact_data

log = logging.getLogger("acode.pipeline")

EVENTS_FILE = "events.jsonl"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class EventLog:
    """Appends events to a file (flushed per line, so a crash loses nothing written) and tells listeners."""

    def __init__(self, path: Path, listeners: list[Callable[[dict[str, Any]], None]] | None = None):
        self.path = path
        self.listeners = list(listeners or [])
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def emit(self, event: str, **fields: Any) -> dict[str, Any]:
        record = redact_data(json.loads(json.dumps({"at": now_iso(), "event": event, **fields}, default=str)))
        line = json.dumps(record, ensure_ascii=False)
        with self._lock, open_private(self.path) as handle:
            handle.write(line + "\n")
        for listener in self.listeners:
            try:
                listener(record)
            except Exception:  # a display problem must never stop the run
                log.exception("event listener failed")
        return record


def read_events(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut by a crash
    return out
