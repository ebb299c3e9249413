"""What an OpenAI-compatible server has been seen to do, remembered per (base_url, model).

Learned from the server's behaviour (a probe, or an error naming a field), never guessed from model
names. Kept in memory for the process and in ``<user cache>/server_caps.json`` across runs, so a server
is probed once, not once per command.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

from acode.paths import user_cache_dir

log = logging.getLogger("acode.llm.openai")

MAX_ENTRIES = 64  # oldest entries are dropped: test servers on random ports must not grow the file forever

_memory: dict[tuple[str, str, str], dict[str, Any]] = {}
_lock = threading.Lock()


def default_caps_file() -> Path:
    return user_cache_dir() / "server_caps.json"


class ServerCaps:
    """Remembered facts about one (base_url, model) pair, e.g. ``native_tools`` or ``response_format``."""

    def __init__(self, base_url: str, model: str, file: str | Path | None = None):
        self.file = Path(file) if file else default_caps_file()
        self.key = f"{base_url.rstrip('/')}|{model}"
        self._memory_key = (str(self.file), base_url.rstrip("/"), model)

    def get(self, fact: str) -> Any:
        with _lock:
            if self._memory_key not in _memory:
                _memory[self._memory_key] = dict(self._read_file().get(self.key, {}))
            return _memory[self._memory_key].get(fact)

    def set(self, fact: str, value: Any) -> None:
        with _lock:
            entry = _memory.setdefault(self._memory_key, {})
            entry[fact] = value
            entry["updated"] = time.time()
            data = self._read_file()
            data[self.key] = dict(entry)
            if len(data) > MAX_ENTRIES:
                newest = sorted(data.items(), key=lambda kv: kv[1].get("updated", 0), reverse=True)
                data = dict(newest[:MAX_ENTRIES])
            try:
                from acode.fsutil import atomic_write_json

                atomic_write_json(self.file, data)
            except OSError as exc:  # a read-only cache only costs a probe next run
                log.warning("could not save server capabilities to %s: %s", self.file, exc)

    def _read_file(self) -> dict[str, Any]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}


def forget_all() -> None:
    """Drop what this process remembers (the file stays): for tests."""
    with _lock:
        _memory.clear()
