"""Glob patterns -> regular expressions over POSIX relative paths. ``*`` and ``?`` stay within one path
segment, ``**`` spans folders, ``[...]`` is a character class and (for file globs, not .gitignore)
``{a,b}`` lists alternatives."""

from __future__ import annotations

import re
from functools import lru_cache


def _char_class(pattern: str, i: int) -> tuple[str, int] | None:
    """The regex for a ``[...]`` class starting at ``pattern[i] == '['`` and the index after it."""
    j = i + 1
    if j < len(pattern) and pattern[j] in "!^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 1
    if j >= len(pattern):
        return None
    body = pattern[i + 1 : j]
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    body = body.replace("\\", "\\\\")
    return ("[^/" if negate else "[") + body + "]", j + 1


def _split_braces(body: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += (ch == "{") - (ch == "}")
        current += ch
    parts.append(current)
    return parts


def _matching_brace(pattern: str, i: int) -> int:
    depth = 0
    for j in range(i, len(pattern)):
        depth += (pattern[j] == "{") - (pattern[j] == "}")
        if depth == 0:
            return j
    return -1


def glob_to_regex(pattern: str, *, braces: bool = True) -> str:
    """A regex body (no anchors) matching what ``pattern`` matches."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            if pattern.startswith("**", i):
                at_segment_start = i == 0 or pattern[i - 1] == "/"
                after = i + 2
                if at_segment_start and pattern.startswith("/", after):
                    out.append("(?:.*/)?")
                    i = after + 1
                    continue
                if at_segment_start and after == n:
                    out.append(".*")
                    i = after
                    continue
                i = after
            else:
                i += 1
            out.append("[^/]*")
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[" and (cls := _char_class(pattern, i)):
            out.append(cls[0])
            i = cls[1]
            continue
        elif ch == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        elif ch == "{" and braces and (end := _matching_brace(pattern, i)) > i:
            options = _split_braces(pattern[i + 1 : end])
            if len(options) > 1:
                out.append("(?:" + "|".join(glob_to_regex(o, braces=True) for o in options) + ")")
                i = end + 1
                continue
            out.append(re.escape(ch))
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A matcher for file globs: a pattern with a ``/`` matches the whole relative path, one without
    matches the whole path too (so ``*.py`` is top-level only, ``**/*.py`` is recursive)."""
    return re.compile("^" + glob_to_regex(pattern.lstrip("/").removeprefix("./")) + "$")


def match_glob(pattern: str, rel_path: str) -> bool:
    return compile_glob(pattern).match(rel_path) is not None


def match_name_or_path(pattern: str, rel_path: str) -> bool:
    """For filters such as ``include_pattern``: ``*.py`` matches the file name at any depth, a pattern
    with a ``/`` matches the relative path."""
    if "/" in pattern.strip("/"):
        return match_glob(pattern, rel_path)
    return match_glob(pattern, rel_path.rsplit("/", 1)[-1])
