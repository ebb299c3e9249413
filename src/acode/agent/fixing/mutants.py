"""Candidates that cost no model call, from the lines the failing tests point at: one small edit each, of
the kinds a one-line bug usually is (a comparison's direction or its `=`, `+` for `-`, `and` for `or`,
a constant off by one, a condition negated, a range or a slice's end off by one). The tests choose.

Why: a small model that copies a function back unchanged often names the right line and still writes it
wrong; the edit a one-line bug needs is, much of the time, one of a few dozen that can be listed without
any model. Each is a test run (a second or so on a small project), not a model call. A mutant that passes
the shown tests but is not the fix is the risk (a test that checks two values lets several edits
through), so they come after the one call and the line asks, and a candidate must still pass the file's
own examples."""

from __future__ import annotations

import ast
import io
import math
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from acode.agent.fixing.rewrite import FileView

# operator token -> what it may have been meant as, the likeliest first
OPERATOR_SWAPS: dict[str, tuple[str, ...]] = {
    "<": ("<=", ">"), "<=": ("<", ">="), ">": (">=", "<"), ">=": (">", "<="),
    "==": ("!=",), "!=": ("==",),
    "+": ("-",), "-": ("+",), "*": ("/",), "/": ("//", "*"), "//": ("/",), "%": ("//",),
    "+=": ("-=",), "-=": ("+=",), "**": ("*",),
}
NAME_SWAPS: dict[str, tuple[str, ...]] = {
    "and": ("or",), "or": ("and",), "True": ("False",), "False": ("True",),
    "min": ("max",), "max": ("min",), "any": ("all",), "all": ("any",),
    "break": ("continue",), "continue": ("break",),
}
_CONDITION_KEYWORDS = ("if", "elif", "while")
_LAYOUT = {tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT}


@dataclass(frozen=True)
class Mutant:
    line: int  # 1-based
    before: str  # the line as it is
    after: str  # the line as the mutant has it
    text: str  # the whole file

    def describe(self, path: str) -> str:
        edit = f"`{self.before.strip()}` -> `{self.after.strip()}`"
        return f"the edit {edit} at {path}:{self.line}, no model call"


def mutant_candidates(sources: list[tuple[FileView, tuple[int, int] | None]], limit: int
                      ) -> list[tuple[str, Mutant]]:
    """(path, mutant) for the Python files' function bodies, at most ``limit`` shared evenly between the
    sources in their order (what one leaves unused goes to those after it): each a file shown whole or
    as an excerpt (None: its shown lines), or a suspect function's (first, last) lines in its file."""
    sources = [s for s in sources if s[0].path.endswith(".py")]
    found: list[tuple[str, Mutant]] = []
    for index, (view, span) in enumerate(sources):
        share = math.ceil((limit - len(found)) / (len(sources) - index))
        lines = body_lines(view.text, span, view.shown_part)
        found += [(view.path, mutant) for mutant in mutants(view.text, lines, share)]
    return found[:limit]


def body_lines(text: str, span: tuple[int, int] | None = None, shown: str | None = None) -> list[int]:
    """The lines of the function bodies of ``text`` (their docstrings left out), in order: within
    ``span`` when given, else those ``shown`` holds (an excerpt) when given, else all."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
            for statement in body:
                found.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
    lines = [line.rstrip("\r\n") for line in io.StringIO(text).readlines()]
    shown_lines = set(shown.splitlines()) if shown is not None and span is None else None
    return [n for n in sorted(found)
            if (span is None or span[0] <= n <= span[1])
            and (shown_lines is None or lines[n - 1] in shown_lines)]


def mutants(text: str, lines: Iterable[int], limit: int) -> list[Mutant]:
    """Up to ``limit`` one-edit variants of ``text`` on ``lines`` (in the order given: the likeliest
    first), each a different program that still parses; none for text that does not parse."""
    try:
        original = ast.dump(ast.parse(text))
    except (SyntaxError, ValueError):
        return []
    source = io.StringIO(text).readlines()  # lines as tokenize and ast count them (not at \f or \x1c)
    tokens: dict[int, list[tokenize.TokenInfo]] = {}
    for token in _tokens(text):
        if token.start[0] == token.end[0] and token.type not in _LAYOUT:
            tokens.setdefault(token.start[0], []).append(token)
    seen: set[str] = set()
    found: list[Mutant] = []
    for number in lines:
        if not 1 <= number <= len(source):
            continue
        line = source[number - 1]
        for changed in _line_variants(line, tokens.get(number, [])):
            candidate = "".join([*source[: number - 1], changed, *source[number:]])
            if changed == line or candidate in seen or not _parses_differently(candidate, original):
                continue
            seen.add(candidate)
            found.append(Mutant(number, line.rstrip("\n"), changed.rstrip("\n"), candidate))
            if len(found) >= limit:
                return found
    return found


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


def _parses_differently(candidate: str, original: str) -> bool:
    try:
        return ast.dump(ast.parse(candidate)) != original
    except (SyntaxError, ValueError):
        return False


def _line_variants(line: str, tokens: list[tokenize.TokenInfo]) -> Iterator[str]:
    """The line with one edit each: operators, names, integer constants, then the condition negated and
    the calls and slices whose end may be off by one."""
    for index, token in enumerate(tokens):
        if token.type == tokenize.OP:
            for other in OPERATOR_SWAPS.get(token.string, ()):
                yield _replace(line, token, other)
        elif token.type == tokenize.NAME and token.string in NAME_SWAPS:
            for other in NAME_SWAPS[token.string]:
                yield _replace(line, token, other)
        elif token.type == tokenize.NAME and token.string == "not" and not _in_operator(tokens, index):
            yield line[: token.start[1]] + line[token.end[1]:].lstrip(" ")
        elif token.type == tokenize.NUMBER and token.string.isdigit():
            value = int(token.string)
            added = index >= 2 and tokens[index - 1].string in "+-" and _ends_operand(tokens[index - 2])
            if added and value == 1:  # `n - 1` as `n`, not `n - 0`
                yield line[: tokens[index - 2].end[1]] + line[token.end[1]:]
            for other in (value + 1, value - 1):
                if other >= 0 and not (added and other == 0):
                    yield _replace(line, token, str(other))
    yield from _negated_condition(line, tokens)
    yield from _ends_off_by_one(line)


def _replace(line: str, token: tokenize.TokenInfo, new: str) -> str:
    return line[: token.start[1]] + new + line[token.end[1]:]


def _ends_operand(token: tokenize.TokenInfo) -> bool:
    """Whether an operand ends with this token (so a `+` or `-` after it is binary)."""
    return token.type in (tokenize.NAME, tokenize.NUMBER, tokenize.STRING) or token.string in ")]}"


def _in_operator(tokens: list[tokenize.TokenInfo], index: int) -> bool:
    """Whether this `not` is half of `not in` or `is not`."""
    after = tokens[index + 1].string if index + 1 < len(tokens) else ""
    before = tokens[index - 1].string if index else ""
    return after == "in" or before == "is"


def _negated_condition(line: str, tokens: list[tokenize.TokenInfo]) -> Iterator[str]:
    """``if x:`` as ``if not (x):`` (and elif, while), for a condition on one line."""
    if len(tokens) < 3 or tokens[0].string not in _CONDITION_KEYWORDS:
        return
    colon = next((t for t in reversed(tokens) if t.type == tokenize.OP and t.string == ":"), None)
    if colon is None or colon is tokens[1]:
        return
    start, end = tokens[1].start[1], colon.start[1]
    condition = line[start:end].strip()
    if condition.startswith("not "):
        yield line[:start] + condition[4:].strip() + line[end:]
    else:
        yield line[:start] + f"not ({condition})" + line[end:]


def _literal_offset(node: ast.expr) -> bool:
    """A constant, or something plus or minus a constant."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        node = node.right
    return isinstance(node, ast.Constant)


def _ends_off_by_one(line: str) -> Iterator[str]:
    """A ``range(...)``'s end and a slice's bounds (not a literal: those are the constants above) plus
    and minus one."""
    stripped = line.strip()
    if not line.isascii():  # ast's offsets count bytes
        return
    try:
        tree = ast.parse(stripped + (" pass" if stripped.endswith(":") else ""))
    except SyntaxError:
        return
    offset = len(line) - len(line.lstrip())
    for node in ast.walk(tree):
        bounds: list[ast.expr] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            bounds = list(node.args[:2])
        elif isinstance(node, ast.Slice):
            bounds = [b for b in (node.lower, node.upper) if b is not None]
        for bound in bounds:
            if _literal_offset(bound) or bound.end_col_offset is None:
                continue  # the constants' edits above cover it
            start, end = offset + bound.col_offset, offset + bound.end_col_offset
            text = line[start:end]
            if not isinstance(bound, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
                text = f"({text})"
            for change in (" + 1", " - 1"):
                yield line[:start] + text + change + line[end:]
