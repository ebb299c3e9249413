"""Reading and writing text files for tools: binary detection, line ranges, and writes that keep the
file's permissions (an atomic rename would otherwise reset them)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from acode.fsutil import atomic_write_bytes
from acode.tools.base import ToolError

BINARY_SNIFF_BYTES = 8000  # the same window git uses to call a file binary


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def is_binary_file(path: Path) -> bool:
    with open(path, "rb") as handle:
        return looks_binary(handle.read(BINARY_SNIFF_BYTES))


def check_readable_file(path: Path, shown: str) -> None:
    if not path.exists():
        raise ToolError(f"File not found: {shown}")
    if path.is_dir():
        raise ToolError(f"{shown} is a directory, not a file; use list_directory to see its contents.")
    if is_binary_file(path):
        size = path.stat().st_size
        raise ToolError(
            f"{shown} is a binary file ({size} bytes) and cannot be shown as text; "
            "use run_shell_command with a tool such as `file` or `xxd` if you need to inspect it."
        )


def iter_lines(path: Path) -> Iterator[str]:
    """Lines without their line ending (``\\n`` or ``\\r\\n``), decoded leniently as UTF-8."""
    with open(path, "rb") as handle:
        for raw in handle:
            yield raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")


def read_text(path: Path, shown: str) -> str:
    check_readable_file(path, shown)
    return path.read_bytes().decode("utf-8", errors="replace")


def write_text_keep_mode(path: Path, text: str) -> None:
    """Atomic write; an existing file keeps its mode, a new one gets the usual umask-based mode."""
    old_mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    atomic_write_bytes(path, text.encode("utf-8"))
    if old_mode is None:
        umask = os.umask(0)
        os.umask(umask)
        old_mode = 0o666 & ~umask
    os.chmod(path, old_mode)


def short_diff(old: str, new: str, shown: str, max_lines: int = 120) -> str:
    """A unified diff for people (the ``display`` of edit tools), cut after ``max_lines`` lines."""
    import difflib

    lines = list(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{shown}", f"b/{shown}", n=2
        )
    )
    lines = [line if line.endswith("\n") else line + "\n" for line in lines]
    if len(lines) > max_lines:
        lines = lines[:max_lines] + [f"... ({len(lines) - max_lines} more diff lines)\n"]
    return "".join(lines)
