"""The built-in tool set and the registry most callers start from."""

from __future__ import annotations

from collections.abc import Iterable

from acode.tools.base import Tool, ToolRegistry

# The review engine and sub-agents look around a repository with exactly these.
REVIEW_TOOL_NAMES = ("read_file_part", "search_in_files", "list_files")


def builtin_tools() -> list[Tool]:
    from acode.tools.files import ReadFile, ReadFilePart, WriteFile

    tools: list[Tool] = [ReadFile(), ReadFilePart(), WriteFile()]
    for factory in _optional_families():
        tools.extend(factory())
    return tools


def _optional_families():
    """Tool families in their own modules (imported lazily: no side effects at import time)."""
    from acode.tools import edit, interact, listing, search, shell

    return [edit.tools, listing.tools, search.tools, shell.tools, interact.tools]


def default_registry(names: Iterable[str] | None = None) -> ToolRegistry:
    """All built-in tools, or only those named (unknown names are ignored)."""
    registry = ToolRegistry(builtin_tools())
    return registry if names is None else registry.subset(names)


READ_ONLY_TOOL_NAMES = (
    "read_file",
    "read_file_part",
    "list_directory",
    "list_files",
    "glob",
    "grep_search",
    "search_in_files",
)
