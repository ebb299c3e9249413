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
LINE_READ_BYTES = 8192  # read_file keeps at most this much of one line in memory (2,000 characters shown)
MAX_EDIT_BYTES = 16 << 20  # files larger than this are not loaded whole by the edit tools


def looks_binary(head: bytes) -> bool:
    return b"\x00" in head[:BINARY_SNIFF_BYTES]


def is_binary_file(path: Path) -> bool:
    with open(path, "rb") as handle:
        return looks_binary(handle.read(BINARY_SNIFF_BYTES))


def check_regular_file(path: Path, shown: str) -> None:
    """Only regular files are opened: a FIFO or a device would block the read (or never end)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise ToolError(f"File not found: {shown}") from None
    if stat.S_ISDIR(mode):
        raise ToolError(f"{shown} is a directory, not a file; use list_directory to see its contents.")
    if not stat.S_ISREG(mode):
        kind = (
            "a FIFO (named pipe)"
            if stat.S_ISFIFO(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "a device"
        )
        raise ToolError(f"{shown} is {kind}, not a regular file; it is not opened (reading could block).")


def check_readable_file(path: Path, shown: str) -> None:
    check_regular_file(path, shown)
    if is_binary_file(path):
        size = path.stat().st_size
        raise ToolError(
            f"{shown} is a binary file ({size} bytes) and cannot be shown as text; "
            "use run_shell_command with a tool such as `file` or `xxd` if you need to inspect it."
        )


def iter_lines(path: Path, max_line_bytes: int = LINE_READ_BYTES) -> Iterator[str]:
    """Lines without their line ending (``\\n`` or ``\\r\\n``), decoded leniently as UTF-8. Only the
    first ``max_line_bytes`` of a line are kept (and yielded with the rest dropped), so one huge line
    never sits in memory whole."""
    with open(path, "rb") as handle:
        while True:
            raw = handle.readline(max_line_bytes)
            if not raw:
                return
            if not raw.endswith(b"\n"):
                while True:  # skip the rest of an over-long line in bounded pieces
                    more = handle.readline(1 << 20)
                    if not more or more.endswith(b"\n"):
                        break
            yield raw.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")


def read_text(path: Path, shown: str) -> str:
    """The text of a file for editing. Bytes that are not UTF-8 are kept as they are (surrogate
    escapes, written back unchanged by ``write_text_keep_mode``)."""
    check_readable_file(path, shown)
    size = path.stat().st_size
    if size > MAX_EDIT_BYTES:
        raise ToolError(
            f"{shown} is {size} bytes, more than the {MAX_EDIT_BYTES >> 20} MiB the edit tools load; "
            "edit it with a command (e.g. sed) instead."
        )
    return path.read_bytes().decode("utf-8", errors="surrogateescape")


def first_non_utf8(text: str) -> int | None:
    """The index of the first byte kept as a surrogate escape (the file is not UTF-8), or None."""
    for index, char in enumerate(text):
        if "\udc80" <= char <= "\udcff":
            return index
    return None


def for_people(text: str) -> str:
    """Text with kept non-UTF-8 bytes shown as U+FFFD (for diffs and messages)."""
    return text.encode("utf-8", errors="surrogateescape").decode("utf-8", errors="replace")


def write_text_keep_mode(path: Path, text: str) -> None:
    """Atomic write; an existing file keeps its mode, a new one gets the usual umask-based mode.
    Non-UTF-8 bytes read by ``read_text`` (surrogate escapes) are written back as the same bytes."""
    old_mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
    atomic_write_bytes(path, text.encode("utf-8", errors="surrogateescape"))
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
