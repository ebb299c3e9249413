"""list_directory, list_files and glob — all respecting .gitignore and .acodeignore."""

from __future__ import annotations

import os
import time
from pathlib import Path

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.globmatch import match_glob, match_name_or_path
from acode.tools.ignore import IgnoreRules, candidate_files
from acode.tools.paths import relative_inside, resolve_shown, workspace_root

MAX_ENTRIES = 500
RECENT_SECONDS = 24 * 3600


def _directory(ctx: ToolContext, raw: str, what: str) -> tuple[Path, str]:
    path, shown = resolve_shown(ctx, raw or ".", what=what)
    if not path.exists():
        raise ToolError(f"Directory not found: {shown}")
    if not path.is_dir():
        raise ToolError(f"{shown} is a file, not a directory; use read_file to read it.")
    return path, shown


class ListDirectoryArgs(BaseModel):
    dir_path: str = Field(".", description="Folder to list, relative to the workspace root.")
    ignore: list[str] | None = Field(None, description="Glob patterns of names to leave out, e.g. ['*.pyc'].")


class ListDirectory(Tool):
    name = "list_directory"
    description = "List the files and folders directly inside a folder (folders first)."
    Args = ListDirectoryArgs
    kind = "read"

    def run(self, args: ListDirectoryArgs, ctx: ToolContext) -> ToolResult:
        path, shown = _directory(ctx, args.dir_path, "dir_path")
        rel_dir = relative_inside(ctx, path)
        rules = IgnoreRules(workspace_root(ctx))
        folders, files, hidden = [], [], 0
        for entry in sorted(os.scandir(path), key=lambda e: e.name.lower()):
            rel = entry.name if rel_dir == "." else f"{rel_dir}/{entry.name}"
            is_dir = entry.is_dir()
            if rules.is_ignored(rel, is_dir) or any(match_glob(p, entry.name) for p in args.ignore or ()):
                hidden += 1
                continue
            (folders if is_dir else files).append(entry.name)
        lines = [f"[DIR] {name}" for name in folders] + files
        shown_lines = lines[:MAX_ENTRIES]
        header = f"Directory listing for {shown}:" if lines else f"Directory {shown} is empty."
        notes = []
        if len(lines) > MAX_ENTRIES:
            notes.append(f"({len(lines) - MAX_ENTRIES} more entries not shown)")
        if hidden:
            notes.append(f"({hidden} ignored by .gitignore/.acodeignore or the ignore argument)")
        return ToolResult(output="\n".join([header, *shown_lines, *notes]))


class ListFilesArgs(BaseModel):
    directory: str = Field(".", description="Folder to list recursively, relative to the workspace root.")
    pattern: str | None = Field(None, description="Optional glob filter, e.g. '*.py' or 'src/**/*.ts'.")


class ListFiles(Tool):
    name = "list_files"
    description = (
        "List files under a folder recursively (ignored files left out), optionally filtered by a glob."
    )
    Args = ListFilesArgs
    kind = "read"

    def run(self, args: ListFilesArgs, ctx: ToolContext) -> ToolResult:
        path, shown = _directory(ctx, args.directory, "directory")
        rel_dir = relative_inside(ctx, path)
        files = candidate_files(workspace_root(ctx), rel_dir)
        if args.pattern:
            files = [f for f in files if match_name_or_path(args.pattern, _strip_dir(f, rel_dir))]
        data = {"directory": shown, "files": files[:MAX_ENTRIES], "total": len(files)}
        data["truncated"] = len(files) > MAX_ENTRIES
        return ToolResult(data=data, display=f"{len(files)} file(s) under {shown}")


def _strip_dir(rel: str, rel_dir: str) -> str:
    return rel if rel_dir == "." else rel[len(rel_dir) + 1 :]


class GlobArgs(BaseModel):
    pattern: str = Field(description="Glob such as '**/*.py' or 'src/*.ts' ('**' spans folders).")
    dir_path: str | None = Field(None, description="Folder to search in, relative to the workspace root.")


def sort_recent_first(root: Path, files: list[str], now: float | None = None) -> list[str]:
    """Files changed in the last 24 hours first (newest first), then the rest alphabetically."""
    now = time.time() if now is None else now
    recent, older = [], []
    for rel in files:
        try:
            mtime = (root / rel).stat().st_mtime
        except OSError:
            continue
        (recent if now - mtime < RECENT_SECONDS else older).append((rel, mtime))
    recent.sort(key=lambda item: (-item[1], item[0]))
    return [rel for rel, _ in recent] + sorted(rel for rel, _ in older)


class Glob(Tool):
    name = "glob"
    description = (
        "Find files whose path matches a glob pattern (e.g. '**/*.py'); recently modified files come first."
    )
    Args = GlobArgs
    kind = "read"

    def run(self, args: GlobArgs, ctx: ToolContext) -> ToolResult:
        path, shown = _directory(ctx, args.dir_path or ".", "dir_path")
        rel_dir = relative_inside(ctx, path)
        root = workspace_root(ctx)
        matched = [
            f for f in candidate_files(root, rel_dir) if match_glob(args.pattern, _strip_dir(f, rel_dir))
        ]
        if not matched:
            return ToolResult(output=f"No files matching '{args.pattern}' in {shown}.")
        ordered = sort_recent_first(root, matched)
        lines = [
            f"Found {len(ordered)} file(s) matching '{args.pattern}' in {shown} (recently modified first):"
        ]
        lines += ordered[:MAX_ENTRIES]
        if len(ordered) > MAX_ENTRIES:
            lines.append(f"({len(ordered) - MAX_ENTRIES} more not shown; use a narrower pattern)")
        return ToolResult(output="\n".join(lines))


def tools() -> list[Tool]:
    return [ListDirectory(), ListFiles(), Glob()]
