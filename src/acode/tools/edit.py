"""replace: change one exact piece of a file. Exact match first (after CRLF normalisation), then a
line-by-line match that ignores surrounding whitespace and re-applies the file's own indentation."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.paths import record_changed_file, resolve_shown
from acode.tools.placeholders import find_new_placeholders, placeholder_error
from acode.tools.textio import first_non_utf8, for_people, read_text, short_diff, write_text_keep_mode


class ReplaceArgs(BaseModel):
    file_path: str = Field(description="Path of the file to edit, relative to the workspace root.")
    old_string: str = Field(
        description="The exact text to replace, with enough surrounding lines to be unique. "
        "Empty to create a new file."
    )
    new_string: str = Field(description="The text to put in its place.")
    allow_multiple: bool = Field(False, description="Replace every occurrence instead of exactly one.")


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _line_matches(lines: list[str], wanted: list[str]) -> list[int]:
    """Start indices of non-overlapping windows whose lines equal ``wanted`` ignoring surrounding
    whitespace."""
    stripped = [line.strip() for line in wanted]
    starts, index = [], 0
    while index + len(wanted) <= len(lines):
        if all(lines[index + k].strip() == stripped[k] for k in range(len(wanted))):
            starts.append(index)
            index += len(wanted)
        else:
            index += 1
    return starts


def _reindent(new_lines: list[str], old_first: str, file_first: str) -> list[str]:
    """Move ``new_lines`` from the indentation the model used to the one the file has."""
    model_indent, file_indent = _indent(old_first), _indent(file_first)
    out = []
    for line in new_lines:
        if not line.strip():
            out.append("")
        elif line.startswith(model_indent):
            out.append(file_indent + line[len(model_indent) :])
        else:
            out.append(file_indent + line.lstrip())
    return out


def apply_replacement(text: str, old: str, new: str, allow_multiple: bool) -> tuple[str, int, bool]:
    """(new text, occurrences replaced, whether the whitespace-tolerant match was needed). ``text``,
    ``old`` and ``new`` use ``\\n`` line endings."""
    count = text.count(old)
    if count:
        if count > 1 and not allow_multiple:
            raise ToolError(_count_error(count))
        return text.replace(old, new), count, False
    if not old.strip():
        raise ToolError("Found 0 occurrences of old_string (it is only whitespace).")
    old_lines = old.strip("\n").split("\n")
    lines = text.split("\n")
    starts = _line_matches(lines, old_lines)
    if not starts:
        raise ToolError(
            "Found 0 occurrences of old_string (also compared line by line ignoring surrounding "
            "whitespace). Read the file again and copy the exact text, including indentation."
        )
    if len(starts) > 1 and not allow_multiple:
        raise ToolError(_count_error(len(starts)))
    new_lines = new.strip("\n").split("\n") if new.strip("\n") else []
    for start in reversed(starts):
        replacement = _reindent(new_lines, old_lines[0], lines[start])
        lines[start : start + len(old_lines)] = replacement
    return "\n".join(lines), len(starts), True


def _count_error(count: int) -> str:
    return (
        f"Found {count} occurrences of old_string, expected exactly 1. Include more surrounding lines to "
        "make it unique, or set allow_multiple=true to replace all of them."
    )


class Replace(Tool):
    name = "replace"
    description = (
        "Replace text in a file: old_string must match exactly one place (copy it from read_file, "
        "with a few lines of context) unless allow_multiple is true. An empty old_string creates a new file."
    )
    Args = ReplaceArgs
    kind = "edit"

    def _edited(self, args: ReplaceArgs, ctx: ToolContext) -> tuple[Path, str, str, str, int, bool]:
        """(path, shown, original text, updated text, replacements, matched ignoring whitespace) of an
        edit of an existing file; raises ToolError for an edit that cannot be made."""
        path, shown = resolve_shown(ctx, args.file_path)
        original = read_text(path, shown)
        crlf = "\r\n" in original
        text = original.replace("\r\n", "\n")
        old = args.old_string.replace("\r\n", "\n")
        new = args.new_string.replace("\r\n", "\n")
        if old == new:
            raise ToolError("old_string and new_string are the same; nothing to change.")
        foreign = first_non_utf8(text)
        if foreign is not None and not new.isascii():
            raise ToolError(
                f"{shown} is not UTF-8 (a byte that is not UTF-8 near character {foreign}); its bytes are "
                "kept "
                "as they are, but new non-ASCII text would mix two encodings. Use ASCII in new_string "
                "(e.g. an escape sequence), or convert the file to UTF-8 first."
            )
        found = find_new_placeholders(new, old + "\n" + text)
        if found:
            raise ToolError(placeholder_error(self.name, found))
        updated, count, flexible = apply_replacement(text, old, new, args.allow_multiple)
        if crlf:
            updated = updated.replace("\n", "\r\n")
        return path, shown, original, updated, count, flexible

    def preview(self, args: ReplaceArgs, ctx: ToolContext) -> str | None:
        try:
            if args.old_string == "":
                _, shown = resolve_shown(ctx, args.file_path)
                return short_diff("", args.new_string, shown)
            _, shown, original, updated, _, _ = self._edited(args, ctx)
        except (ToolError, OSError):
            return None
        return _people_diff(original, updated, shown)

    def run(self, args: ReplaceArgs, ctx: ToolContext) -> ToolResult:
        if args.old_string == "":
            path, shown = resolve_shown(ctx, args.file_path)
            return self._create(path, shown, args.new_string, ctx)
        path, shown, original, updated, count, flexible = self._edited(args, ctx)
        write_text_keep_mode(path, updated)
        record_changed_file(ctx, path)
        how = " (matched ignoring whitespace; the file's indentation was kept)" if flexible else ""
        return ToolResult(
            output=f"Replaced {count} occurrence(s) in {shown}{how}.",
            display=_people_diff(original, updated, shown),
        )

    def _create(self, path, shown: str, content: str, ctx: ToolContext) -> ToolResult:
        if path.exists():
            raise ToolError(
                f"{shown} already exists; an empty old_string only creates new files. Give the text to "
                "replace, or use write_file to rewrite the whole file."
            )
        found = find_new_placeholders(content)
        if found:
            raise ToolError(placeholder_error(self.name, found))
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_keep_mode(path, content)
        record_changed_file(ctx, path)
        return ToolResult(output=f"Created {shown}.", display=short_diff("", content, shown))


def _people_diff(original: str, updated: str, shown: str) -> str:
    def readable(text: str) -> str:
        return for_people(text).replace("\r\n", "\n")

    return short_diff(readable(original), readable(updated), shown)


def tools() -> list[Tool]:
    return [Replace()]
