"""Finding regex matches in files, with interchangeable engines that give the same rows: ``git grep``
(inside git repositories) or a pure-Python scan. An external engine only *locates* candidate lines;
every row is then confirmed with Python's ``re`` on the same line model (split on ``\\n``, files with a
NUL byte in the first 8,000 bytes skipped as binary), so the engine never changes the answer."""

from __future__ import annotations

import logging
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acode.gitcmd import safe_git
from acode.tools.base import ToolError
from acode.tools.bounded import BoundedTimeout, run_bounded
from acode.tools.ignore import _in_git_work_tree
from acode.tools.textio import looks_binary

log = logging.getLogger("acode.tools.search")

Engine = Literal["auto", "git", "python"]
_NO_PREFILTER = ("(?=", "(?!", "(?<", "\\A", "\\Z", "\\z")


class EngineFailed(RuntimeError):
    pass


_WIDEN = {"w": r"(?:\w|[^\x00-\x7F])", "d": r"(?:\d|[^\x00-\x7F])", "s": r"(?:\s|[^\x00-\x7F])"}
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def git_pattern(pattern: str) -> str | None:
    r"""A PCRE pattern for ``git grep`` that matches every line the Python pattern matches (maybe more:
    rows are confirmed in Python anyway), or None when no such rewrite is known and Python must scan.
    PCRE in git's UTF-8 mode treats ``\w``, ``\d``, ``\s`` and ``\b`` as ASCII-only, where Python
    is Unicode-aware, so those are widened (or, for ``\b``, dropped)."""
    if not pattern.isascii() or re.search(r"\{\s*,", pattern):
        return None
    lookaround = any(token in pattern for token in _LOOKAROUND)
    out, i, in_class = [], 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if in_class and nxt in "wdsWDS":
                return None
            if not in_class and nxt in _WIDEN:
                out.append(_WIDEN[nxt])
            elif not in_class and nxt in "bB":
                if lookaround:
                    return None  # dropping an assertion inside a negative lookaround narrows the match
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
            out.append(ch)
            i += 1
            if pattern[i : i + 1] == "^":
                out.append("^")
                i += 1
            if pattern[i : i + 1] == "]":
                out.append("]")
                i += 1
            continue
        if ch == "]" and in_class:
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Match:
    file_path: str  # POSIX, relative to the workspace root
    line_number: int  # 1-based
    lines: tuple[str, ...]  # the whole file, for context


@dataclass
class SearchOutcome:
    matches: list[Match]
    truncated: bool
    engine: str


def compile_pattern(pattern: str, case_sensitive: bool) -> re.Pattern[str]:
    if not pattern:
        raise ToolError("pattern is empty; give a regular expression to search for.")
    try:
        return re.compile(pattern, 0 if case_sensitive else re.IGNORECASE)
    except re.error as exc:
        raise ToolError(f"Invalid regular expression {pattern!r}: {exc}.") from exc


def file_text(path: Path) -> str | None:
    """The decoded text of a file; None for binary or unreadable files."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return None if looks_binary(data) else data.decode("utf-8", errors="replace")


def file_lines(path: Path, text: str | None = None) -> tuple[str, ...] | None:
    """The line model every engine is checked against; None for binary or unreadable files."""
    text = file_text(path) if text is None else text
    if text is None:
        return None
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return tuple(lines)


def _timed_out(timeout: float) -> ToolError:
    return ToolError(
        f"Search timed out after {timeout:g}s; narrow the pattern, the folder or the file filter."
    )


def _python_lines(regex: re.Pattern[str], lines: tuple[str, ...]) -> list[int]:
    return [number for number, line in enumerate(lines, 1) if regex.search(line)]


def _python_hits(root: Path, files: list[str], regex: re.Pattern[str]):
    whole = None
    if not any(token in regex.pattern for token in _NO_PREFILTER):
        whole = re.compile(regex.pattern, regex.flags | re.MULTILINE)
    for rel in files:
        text = file_text(root / rel)
        if not text or (whole is not None and not whole.search(text)):
            continue
        lines = file_lines(root / rel, text)
        yield rel, lines, _python_lines(regex, lines)


def _git_candidates(
    root: Path,
    rel_dir: str,
    pattern: str,
    case_sensitive: bool,
    per_file: int,
    deadline: float,
    timeout: float,
) -> dict[str, list[int]]:
    env = {**os.environ, "LC_ALL": "C.UTF-8"}  # PCRE's UTF-8 mode: '.' is one character, as in Python
    command = safe_git(root, "-c", "grep.fallbackToNoIndex=false", "grep", "-n", "-z", "-I", "--untracked")
    command += ["--no-color", "-P", "--max-count", str(per_file)]
    command += ([] if case_sensitive else ["-i"]) + ["-e", pattern, "--", rel_dir or "."]
    try:
        proc = subprocess.run(
            command,
            cwd=root,
            env=env,
            capture_output=True,
            timeout=max(0.1, deadline - time.monotonic()),
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise _timed_out(timeout) from exc
    except OSError as exc:
        raise EngineFailed(str(exc)) from exc
    if proc.returncode not in (0, 1):
        raise EngineFailed(proc.stderr.decode("utf-8", errors="replace").strip() or f"exit {proc.returncode}")
    hits: dict[str, list[int]] = {}
    out, pos = proc.stdout, 0
    while pos < len(out):
        path_end = out.index(b"\0", pos)
        number_end = out.index(b"\0", path_end + 1)
        line_end = out.find(b"\n", number_end + 1)
        rel = out[pos:path_end].decode("utf-8", errors="surrogateescape")
        hits.setdefault(rel, []).append(int(out[path_end + 1 : number_end]))
        pos = len(out) if line_end == -1 else line_end + 1
    return hits


def _confirmed_git_hits(root, files, regex, candidates: dict[str, list[int]], per_file: int):
    for rel in files:
        numbers = candidates.get(rel)
        lines = file_lines(root / rel) if numbers else None
        if not lines:
            continue
        confirmed = [n for n in numbers if n <= len(lines) and regex.search(lines[n - 1])]
        if len(confirmed) < len(numbers) and len(numbers) >= per_file:
            confirmed = _python_lines(regex, lines)  # git's cap may have hidden lines Python matches
        yield rel, lines, confirmed


def _first_rows(hits, limit: int) -> list[tuple[str, int]]:
    """Up to ``limit + 1`` (file, line) rows (one more tells that there were more), consuming ``hits``
    lazily."""
    rows: list[tuple[str, int]] = []
    for rel, _lines, numbers in hits:
        rows += ((rel, n) for n in numbers)
        if len(rows) > limit:
            break
    return rows


def scan_rows(
    root: Path,
    files: list[str],
    pattern: str,
    case_sensitive: bool,
    limit: int,
    candidates: dict[str, list[int]] | None,
) -> list[tuple[str, int]]:
    """The regex work (Python's engine, which can backtrack for ever on a pattern like ``(a|aa)+$``):
    it runs in a worker process the caller can stop (``acode.tools.bounded``)."""
    regex = compile_pattern(pattern, case_sensitive)
    if candidates is None:
        hits = _python_hits(root, files, regex)
    else:
        hits = _confirmed_git_hits(root, files, regex, candidates, limit + 1)
    return _first_rows(hits, limit)


def _rows_to_matches(root: Path, rows: list[tuple[str, int]]) -> list[Match]:
    cache: dict[str, tuple[str, ...]] = {}
    matches = []
    for rel, number in rows:
        if rel not in cache:
            cache[rel] = file_lines(root / rel) or ()
        matches.append(Match(rel, number, cache[rel]))
    return matches


def find_matches(
    root: Path,
    files: list[str],
    pattern: str,
    *,
    case_sensitive: bool = False,
    limit: int = 100,
    rel_dir: str = ".",
    engine: Engine = "auto",
    timeout: float = 30.0,
) -> SearchOutcome:
    """The first ``limit`` matches in ``files`` (sorted by path, then line), and whether there were more."""
    compile_pattern(pattern, case_sensitive)  # a bad pattern is reported here, before any work
    files = sorted(files)
    deadline = time.monotonic() + timeout
    for_git = git_pattern(pattern)
    order = ["python"]
    if for_git is not None and (engine == "git" or (engine == "auto" and _in_git_work_tree(root))):
        order = ["git", "python"]
    for name in order:
        if time.monotonic() >= deadline:
            raise _timed_out(timeout)
        try:
            candidates = None
            if name == "git":
                candidates = _git_candidates(
                    root, rel_dir, for_git, case_sensitive, limit + 1, deadline, timeout
                )
            rows = run_bounded(
                scan_rows,
                (root, files, pattern, case_sensitive, limit, candidates),
                timeout=max(0.1, deadline - time.monotonic()),
                inline=_is_literal(pattern),
            )
        except BoundedTimeout as exc:
            raise _timed_out(timeout) from exc
        except EngineFailed as exc:
            if engine != "auto":
                raise ToolError(f"Search with {name} grep failed: {exc}") from exc
            log.warning("%s grep failed (%s); falling back to the built-in search", name, exc)
            continue
        matches = _rows_to_matches(root, rows)
        return SearchOutcome(matches[:limit], len(matches) > limit, name)
    raise ToolError("No search engine could run.")  # unreachable: python never raises EngineFailed


def _is_literal(pattern: str) -> bool:
    """A pattern without regex syntax cannot backtrack: it is searched in this process."""
    return not re.search(r"[.^$*+?{}\[\]|()\\]", pattern)
