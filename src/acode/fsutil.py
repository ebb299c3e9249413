"""File writes that never leave a half-written file behind (write a temporary file, fsync, rename), and files
for their owner only.

Everything acode writes that holds prompts or outputs (the database with its sessions and reviews, logs, run
records, saved outputs, crash reports) is created 0600 (``mkstemp`` makes the atomic writes so) and an
existing one with wider permissions is tightened when acode opens it (``open_private``, ``make_private``):
under the usual umask 022 they would be readable by every user of the machine.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import IO, Any

PRIVATE_MODE = 0o600
_OPEN_FLAGS = {"a": os.O_WRONLY | os.O_CREAT | os.O_APPEND, "w": os.O_WRONLY | os.O_CREAT | os.O_TRUNC}


def make_private(path: Path) -> None:
    """``path`` readable and writable by its owner only, if it exists with wider permissions."""
    try:
        if os.stat(path).st_mode & 0o077:
            os.chmod(path, PRIVATE_MODE)
    except OSError:  # not there, or another user's file: nothing to tighten here
        pass


def open_private(path: Path | str, mode: str = "a", encoding: str = "utf-8") -> IO[Any]:
    """``open(path, mode)`` for ``a``/``w`` (text) or ``ab``/``wb``, creating the file 0600 and tightening
    an existing one."""
    fd = os.open(path, _OPEN_FLAGS[mode[0]] | getattr(os, "O_CLOEXEC", 0), PRIVATE_MODE)
    try:
        if os.fstat(fd).st_mode & 0o077 and os.fstat(fd).st_uid == os.geteuid():
            os.fchmod(fd, PRIVATE_MODE)
        return os.fdopen(fd, mode) if "b" in mode else os.fdopen(fd, mode, encoding=encoding)
    except BaseException:
        os.close(fd)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str, encoding: str = "utf-8") -> None:
    atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def resolves_inside(path: Path | str, folder: Path | str) -> bool:
    """Whether ``path``, with every symlink followed, is ``folder`` or lies inside it (also resolved)."""
    real, top = os.path.realpath(path), os.path.realpath(folder)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)
