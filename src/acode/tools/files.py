"""read_file, read_file_part and write_file."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.paths import record_changed_file, resolve_shown
from acode.tools.placeholders import find_new_placeholders, placeholder_error
from acode.tools.textio import (
    MAX_EDIT_BYTES,
    check_readable_file,
    check_regular_file,
    is_binary_file,
    iter_lines,
    short_diff,
    write_text_keep_mode,
)

MAX_LINES = 2000
MAX_LINE_CHARS = 2000


@dataclass
class LineWindow:
    lines: list[str]
    start: int
    end: int  # 0 for an empty file
    total: int
    shortened: int  # how many lines were cut to MAX_LINE_CHARS


def read_window(path, shown: str, start_line: int | None, end_line: int | None, max_lines: int) -> LineWindow:
    check_readable_file(path, shown)
    if start_line is not None and end_line is not None and end_line < start_line:
        raise ToolError(f"Invalid range for {shown}: end_line {end_line} is before start_line {start_line}.")
    start = start_line or 1
    last = start + max_lines - 1 if end_line is None else min(end_line, start + max_lines - 1)
    lines: list[str] = []
    shortened = total = 0
    for number, line in enumerate(iter_lines(path), 1):
        total = number
        if start <= number <= last:
            if len(line) > MAX_LINE_CHARS:
                line = line[:MAX_LINE_CHARS] + " ... [line shortened]"
                shortened += 1
            lines.append(line)
    if start > max(total, 1):
        raise ToolError(
            f"Invalid range for {shown}: start_line {start} is past the end of the file ({total} lines)."
        )
    return LineWindow(lines, start, min(last, total), total, shortened)


class ReadFileArgs(BaseModel):
    file_path: str = Field(description="Path of the file, relative to the workspace root.")
    start_line: int | None = Field(None, ge=1, description="First line to read (1-based). Default: 1.")
    end_line: int | None = Field(None, ge=1, description="Last line to read (1-based, inclusive).")


class ReadFile(Tool):
    name = "read_file"
    description = (
        "Read a text file. Optionally read only lines start_line..end_line (1-based, inclusive). "
        f"At most {MAX_LINES} lines are returned per call; a notice says how to read the next part."
    )
    Args = ReadFileArgs
    kind = "read"

    def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        path, shown = resolve_shown(ctx, args.file_path)
        window = read_window(path, shown, args.start_line, args.end_line, MAX_LINES)
        notices = []
        if window.total and (window.start > 1 or window.end < window.total):
            notice = f"[Showing lines {window.start}-{window.end} of {window.total} in {shown}."
            if window.end < window.total:
                notice += f" To read more, call read_file with start_line={window.end + 1}."
            notices.append(notice + "]")
        if window.shortened:
            notices.append(
                f"[{window.shortened} line(s) longer than {MAX_LINE_CHARS} characters were shortened.]"
            )
        if not window.total:
            notices.append(f"[{shown} is empty.]")
        body = "\n".join(window.lines)
        output = "\n".join(notices) + ("\n" if notices and body else "") + body
        return ToolResult(output=output, display=f"Read {shown} lines {window.start}-{window.end}")


class ReadFilePart(Tool):
    name = "read_file_part"
    description = (
        "Read part of a file with line numbers. Returns file_path, content (numbered lines), start_line, "
        "end_line and total_lines. Use it to look at code around a change."
    )
    Args = ReadFileArgs
    kind = "read"

    def __init__(self, max_lines: int = 400):
        self.max_lines = max_lines

    def run(self, args: ReadFileArgs, ctx: ToolContext) -> ToolResult:
        path, shown = resolve_shown(ctx, args.file_path)
        window = read_window(path, shown, args.start_line, args.end_line, self.max_lines)
        width = len(str(window.end or 1))
        content = "\n".join(
            f"{number:>{width}} | {line}" for number, line in enumerate(window.lines, window.start)
        )
        data = {
            "file_path": shown,
            "content": content,
            "start_line": window.start,
            "end_line": window.end,
            "total_lines": window.total,
        }
        if window.end < window.total:
            data["next_start_line"] = window.end + 1
        return ToolResult(data=data, display=f"Read {shown} lines {window.start}-{window.end}")


class WriteFileArgs(BaseModel):
    file_path: str = Field(description="Path of the file to write, relative to the workspace root.")
    content: str = Field(description="The complete new content of the file.")


class WriteFile(Tool):
    name = "write_file"
    description = (
        "Write the complete content of a file, creating it (and its parent folders) if needed or "
        "replacing it. Always give the whole file: placeholders such as '... rest of code ...' are refused."
    )
    Args = WriteFileArgs
    kind = "edit"

    def _current(self, args: WriteFileArgs, ctx: ToolContext) -> tuple[Path, str, str]:
        """(path, how it is shown, its current text: "" for a new, large or binary file)."""
        path, shown = resolve_shown(ctx, args.file_path)
        if path.is_dir():
            raise ToolError(f"{shown} is a directory; give a file path.")
        old = ""
        if path.exists():
            check_regular_file(path, shown)  # never open a FIFO or a device
            if path.stat().st_size <= MAX_EDIT_BYTES and not is_binary_file(path):
                old = path.read_bytes().decode("utf-8", errors="replace")
        return path, shown, old

    def preview(self, args: WriteFileArgs, ctx: ToolContext) -> str | None:
        try:
            _, shown, old = self._current(args, ctx)
        except (ToolError, OSError):
            return None
        return short_diff(old, args.content, shown)

    def run(self, args: WriteFileArgs, ctx: ToolContext) -> ToolResult:
        path, shown, old = self._current(args, ctx)
        existed = path.exists()
        found = find_new_placeholders(args.content, old)
        if found:
            raise ToolError(placeholder_error(self.name, found))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_keep_mode(path, args.content)
        record_changed_file(ctx, path)
        lines = len(args.content.splitlines())
        verb = "Overwrote" if existed else "Created"
        return ToolResult(
            output=f"{verb} {shown} ({lines} lines).", display=short_diff(old, args.content, shown)
        )
