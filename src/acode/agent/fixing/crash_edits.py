"""Candidates that cost no model call, from how a failing test crashes: the statement a project frame of its
traceback points at (the line that raised first, then its callers), with the exception the test expects
raised in place of the one it got, or guarded against the crash (``if hasattr(x, "a"):`` for a missing
attribute, ``if x is not None:`` for ``None``, ``if k in d:`` for a missing key). The tests choose.

Why: a crash fix is often one of these few shapes (program-repair templates: a null check, an attribute
check, an exception translated at a module's boundary), and the traceback names the statement. On the
tune half, idna 3.7->3.8 expected ``IDNAError`` and got ``ValueError`` from ``unicodedata.name``: the
release wraps the call in ``try``/``except ValueError`` and raises ``IDNAError``. A guard that silences a
crash can make a test pass for the wrong reason, so like the one-token edits (mutants.py) these come after
the one call and its line asks, are kept only as the whole fix, and must pass the file's own examples."""

from __future__ import annotations

import ast
import builtins
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.outcome import printed_frames

MAX_SITES = 3  # frames per crash, from the one that raised: the fix is rarely further up
_SECTION = re.compile(r"^_{3,} .+ _{3,}$", re.MULTILINE)
_ERROR = re.compile(r"^E\s+(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception))(?::\s?(.*))?$", re.MULTILINE)
_EXPECTS = re.compile(r"\b(?:assertRaises(?:Regex)?|raises)\(\s*(?:[\w.]+\.)?([A-Z]\w*)\b")
_NO_ATTRIBUTE = re.compile(r"has no attribute '(\w+)'")


@dataclass(frozen=True)
class Crash:
    sites: tuple[tuple[str, int], ...]  # (path, line) of the project frames, the one that raised first
    error: str  # the exception's class name
    message: str
    expected: str | None  # the exception class the test expects (assertRaises / pytest.raises), if any


@dataclass(frozen=True)
class CrashEdit:
    path: str
    line: int  # the statement's first line
    what: str  # the edit, for the answer
    text: str  # the whole file

    def describe(self) -> str:
        return f"{self.what} at {self.path}:{self.line}, no model call"


def read_crashes(output: str, paths: set[str]) -> list[Crash]:
    """The crashes of the failing tests' sections of pytest's output, their frames in ``paths`` (the
    files the fixer may write); an assertion that failed in a test is no crash."""
    crashes: list[Crash] = []
    for section in _SECTION.split(output)[1:]:
        error = _ERROR.search(section)
        if error is None:
            continue
        frames = reversed(printed_frames(section))
        sites = tuple(dict.fromkeys(f for f in frames if _posix(f[0]) in paths))[:MAX_SITES]
        expects = _EXPECTS.search(section)
        crash = Crash(tuple((_posix(p), n) for p, n in sites), error.group(1), error.group(2) or "",
                      expects.group(1) if expects else None)
        if crash.sites and crash not in crashes:
            crashes.append(crash)
    return crashes


def _posix(path: str) -> str:
    return path.replace("\\", "/").removeprefix("./")


def crash_edits(crashes: list[Crash], views: list[FileView], limit: int) -> list[CrashEdit]:
    """Up to ``limit`` edits, each a different program that still parses: for each crash's sites in
    order, the expected exception raised instead of the one caught, then the guards."""
    sites = {path for crash in crashes for path, _ in crash.sites}  # only those files are parsed
    files = {v.path: parsed for v in views if v.path in sites and (parsed := _Parsed.of(v.text)) is not None}
    found: list[CrashEdit] = []
    for crash in crashes:
        for path, line in crash.sites:
            if path in files:
                found += [e for e in _site_edits(crash, path, files[path], line) if e not in found]
    return found[:limit]


@dataclass(frozen=True)
class _Parsed:
    """A file parsed once for the edits of all the frames in it."""

    text: str
    tree: ast.Module
    dump: str  # the tree, to tell an edit that changes nothing
    strings: Counter[str]  # its string constants (an edit must keep them)
    names: frozenset[str]  # what it defines or imports at its top level

    @classmethod
    def of(cls, text: str) -> _Parsed | None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        return cls(text, tree, ast.dump(tree), _strings(tree), frozenset(_module_names(tree)))


def _site_edits(crash: Crash, path: str, file: _Parsed, line: int) -> Iterator[CrashEdit]:
    text, tree = file.text, file.tree
    statement = _statement_at(tree, line)
    if statement is None:
        return
    lines = io.StringIO(text).readlines()  # lines as ast counts them (not at \f or \x1c)
    first, last = statement.lineno, statement.end_lineno or statement.lineno
    block = lines[first - 1:last]
    indent = block[0][: len(block[0]) - len(block[0].lstrip())]
    caught = crash.error in file.names or isinstance(getattr(builtins, crash.error, None), type)
    if crash.expected and crash.expected != crash.error and crash.expected in file.names and caught:
        handler = [f"{indent}except {crash.error} as exc:\n",
                   f"{indent}    raise {crash.expected}(str(exc)) from exc\n"]
        edit = _wrapped(lines, first, last, f"{indent}try:\n", handler)
        yield from _checked(path, first, f"`{crash.error}` raised as `{crash.expected}`", edit, file)
    for condition in _guards(crash, statement, text):
        edit = _wrapped(lines, first, last, f"{indent}if {condition}:\n", [])
        yield from _checked(path, first, f"the guard `if {condition}:`", edit, file)


def _statement_at(tree: ast.Module, line: int) -> ast.stmt | None:
    """The innermost statement of a function body that holds ``line`` (a compound one when the line is its
    header), or None outside a function."""
    found: ast.stmt | None = None

    def visit(node: ast.AST, in_function: bool) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.stmt):
                continue
            if child.lineno <= line <= (child.end_lineno or child.lineno):
                is_def = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                if in_function and not is_def:
                    found = child
                visit(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, False)
    return found


def _module_names(tree: ast.Module) -> set[str]:
    """The names a module defines or imports at its top level."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _guards(crash: Crash, statement: ast.stmt, text: str) -> list[str]:
    """The conditions that would have kept the statement from crashing this way, from its own code (a
    compound statement's header only: its body has frames of its own)."""
    nodes = [n for root in ([statement] if not hasattr(statement, "body") else _header(statement))
             for n in ast.walk(root)]

    def source(node: ast.expr) -> str | None:
        segment = ast.get_source_segment(text, node)
        return segment if segment and "\n" not in segment else None

    conditions: list[str] = []
    missing = _NO_ATTRIBUTE.search(crash.message)
    if crash.error == "AttributeError" and missing and "NoneType" not in crash.message:
        name = missing.group(1)
        conditions += [f'hasattr({t}, "{name}")' for n in nodes
                       if isinstance(n, ast.Attribute) and n.attr == name and (t := source(n.value))]
    if crash.error in ("AttributeError", "TypeError") and "NoneType" in crash.message:
        conditions += [f"{t} is not None" for n in nodes if isinstance(n, (ast.Attribute, ast.Subscript))
                       and isinstance(n.value, (ast.Name, ast.Attribute)) and (t := source(n.value))]
    if crash.error == "KeyError":
        conditions += [f"{k} in {t}" for n in nodes if isinstance(n, ast.Subscript)
                       and (t := source(n.value)) and (k := source(n.slice))]
    return list(dict.fromkeys(conditions))


def _header(statement: ast.stmt) -> list[ast.AST]:
    """What a compound statement evaluates before its body: an if's or while's test, a for's iterable,
    a with's items."""
    parts = [getattr(statement, name, None) for name in ("test", "iter")]
    parts += [item.context_expr for item in getattr(statement, "items", [])]
    return [p for p in parts if p is not None]


def _wrapped(lines: list[str], first: int, last: int, opening: str, closing: list[str]) -> str:
    inner = ["    " + line if line.strip() else line for line in lines[first - 1:last]]
    if inner and not inner[-1].endswith("\n"):
        inner[-1] += "\n"
    return "".join([*lines[: first - 1], opening, *inner, *closing, *lines[last:]])


def _checked(path: str, line: int, what: str, text: str, original: _Parsed) -> Iterator[CrashEdit]:
    """The edit, when it parses to a different program (a statement holding a multi-line string is not
    re-indented safely: its string would change, so such an edit is dropped)."""
    try:
        edited = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    if ast.dump(edited) != original.dump and not original.strings - _strings(edited):
        yield CrashEdit(path, line, what, text)


def _strings(tree: ast.Module) -> Counter[str]:
    return Counter(n.value for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str))


class CrashEdits:
    """The statements the failing tests crashed in (before any edit), guarded or raising the exception a
    test expects."""

    name = "crash"
    counts_as_attempt, keep_if_partial, needs_model = False, False, False

    def candidates(self, session: FixSession) -> Candidates:
        crashes = read_crashes(session.before.output, {v.path for v in session.all_views})
        for edit in crash_edits(crashes, session.all_views, session.settings.crash_edits):
            yield Proposal({edit.path: edit.text}, edit.describe())
        return None
