"""grep_search (text for the agent) and search_in_files (rows with context for the reviewer)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.globmatch import match_name_or_path
from acode.tools.ignore import candidate_files
from acode.tools.paths import relative_inside, resolve_path, workspace_root
from acode.tools.search_engines import Engine, Match, SearchOutcome, find_matches

MAX_LINE_CHARS = 500
SEARCH_TIMEOUT_SECONDS = 30.0


def _clip(line: str) -> str:
    line = line.removesuffix("\r")
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " ..."


def search_workspace(
    ctx: ToolContext,
    pattern: str,
    *,
    dir_path: str | None,
    include: str | None,
    case_sensitive: bool,
    limit: int,
    engine: Engine = "auto",
    timeout: float = SEARCH_TIMEOUT_SECONDS,
) -> tuple[SearchOutcome, str]:
    """Matches under ``dir_path`` (ignore files respected, symlinks skipped), and the folder as shown."""
    folder = resolve_path(ctx, dir_path or ".", what="dir_path")
    shown = relative_inside(ctx, folder)
    if not folder.is_dir():
        raise ToolError(
            f"dir_path '{dir_path}' is not a directory."
            if folder.exists()
            else f"Directory not found: {shown}"
        )
    root = workspace_root(ctx)
    files = candidate_files(root, shown, symlinks=False)
    if include:
        files = [f for f in files if match_name_or_path(include, f if shown == "." else f[len(shown) + 1 :])]
    outcome = find_matches(
        root,
        files,
        pattern,
        case_sensitive=case_sensitive,
        limit=limit,
        rel_dir=shown,
        engine=engine,
        timeout=timeout,
    )
    return outcome, shown


def match_context(match: Match, context_lines: int) -> str:
    first = max(1, match.line_number - context_lines)
    last = min(len(match.lines), match.line_number + context_lines)
    width = len(str(last))
    return "\n".join(
        f"{'>' if n == match.line_number else ' '}{n:>{width}} | {_clip(match.lines[n - 1])}"
        for n in range(first, last + 1)
    )


class GrepSearchArgs(BaseModel):
    pattern: str = Field(description="Regular expression (Python/PCRE syntax) to look for in file contents.")
    dir_path: str | None = Field(None, description="Folder to search, relative to the workspace root.")
    include_pattern: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'.")
    case_sensitive: bool = Field(False, description="Match case exactly (default: ignore case).")
    max_matches: int = Field(100, ge=1, le=1000, description="Stop after this many matching lines.")


class _SearchTool(Tool):
    kind = "read"

    def __init__(self, engine: Engine = "auto", timeout: float = SEARCH_TIMEOUT_SECONDS):
        self.engine, self.timeout = engine, timeout


class GrepSearch(_SearchTool):
    name = "grep_search"
    description = (
        "Search file contents with a regular expression; returns matching lines with file paths and "
        "line numbers. Ignored files (.gitignore, .acodeignore) are skipped."
    )
    Args = GrepSearchArgs

    def run(self, args: GrepSearchArgs, ctx: ToolContext) -> ToolResult:
        outcome, shown = search_workspace(
            ctx,
            args.pattern,
            dir_path=args.dir_path,
            include=args.include_pattern,
            case_sensitive=args.case_sensitive,
            limit=args.max_matches,
            engine=self.engine,
            timeout=self.timeout,
        )
        where = f"in {shown}" + (f" (files: {args.include_pattern})" if args.include_pattern else "")
        if not outcome.matches:
            return ToolResult(output=f"No matches for /{args.pattern}/ {where}.")
        lines = [f"Found {len(outcome.matches)} match(es) for /{args.pattern}/ {where}:"]
        current = None
        for match in outcome.matches:
            if match.file_path != current:
                current = match.file_path
                lines.append(f"--- {current} ---")
            lines.append(f"{match.line_number}: {_clip(match.lines[match.line_number - 1])}")
        if outcome.truncated:
            lines.append(
                f"[Stopped at {args.max_matches} matches; narrow the pattern or the folder to see the rest.]"
            )
        return ToolResult(output="\n".join(lines))


class SearchInFilesArgs(BaseModel):
    pattern: str = Field(description="Regular expression to look for.")
    file_pattern: str | None = Field(None, description="Only files matching this glob, e.g. '*.py'.")
    context_lines: int = Field(2, ge=0, le=20, description="Lines of context around each match.")
    max_results: int = Field(50, ge=1, le=500, description="Stop after this many matches.")
    case_sensitive: bool = Field(False, description="Match case exactly (default: ignore case).")


class SearchInFiles(_SearchTool):
    name = "search_in_files"
    description = (
        "Search the repository for a regular expression. Returns rows with file_path, line_number, "
        "line_content and match_context (surrounding lines)."
    )
    Args = SearchInFilesArgs

    def run(self, args: SearchInFilesArgs, ctx: ToolContext) -> ToolResult:
        outcome, _ = search_workspace(
            ctx,
            args.pattern,
            dir_path=None,
            include=args.file_pattern,
            case_sensitive=args.case_sensitive,
            limit=args.max_results,
            engine=self.engine,
            timeout=self.timeout,
        )
        rows = [
            {
                "file_path": m.file_path,
                "line_number": m.line_number,
                "line_content": _clip(m.lines[m.line_number - 1]),
                "match_context": match_context(m, args.context_lines),
            }
            for m in outcome.matches
        ]
        data = {"pattern": args.pattern, "matches": rows, "truncated": outcome.truncated}
        return ToolResult(data=data, display=f"{len(rows)} match(es) for /{args.pattern}/")


def tools() -> list[Tool]:
    return [GrepSearch(), SearchInFiles()]
