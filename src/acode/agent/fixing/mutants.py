"""Candidates that cost no model call, from the lines the failing tests point at: one small edit each, of
the kinds a one-line bug usually is (a comparison's direction or its `=`, `+` for `-`, `and` for `or`,
a constant off by one, a condition negated, a range or a slice's end off by one). The tests choose.

Why: a small model that copies a function back unchanged often names the right line and still writes it
wrong; the edit a one-line bug needs is, much of the time, one of a few dozen that can be listed without
any model. Each is a test run (a second or so on a small project), not a model call. A mutant that passes
the shown tests but is not the fix is the risk (a test that checks two values lets several edits
through), so they come after the one call and the line asks, and a candidate must still pass the file's
own examples.

A deleted statement is the other kind listed without a model: a call or an assignment too many (pyparsing
3.2.5's `Word.copy` set an attribute it must not; pyflakes 3.0.1 passed a node it must not). Deletions
have their own limit, tried after the one-token edits."""

from __future__ import annotations

import ast
import io
import math
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.file_view import FileView

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
# statements whose deletion is a different program worth a test run (not a declaration or an import)
_DELETABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise, ast.Delete,
              ast.Break, ast.Continue, ast.Assert)


@dataclass(frozen=True)
class Mutant:
    line: int  # 1-based
    before: str  # the line as it is
    after: str  # the line as the mutant has it
    text: str  # the whole file
    lines: int = 1  # a deletion's lines (an `if` block whole)

    def describe(self, path: str) -> str:
        if not self.after:
            block = f" and its block ({self.lines} lines)" if self.lines > 1 else ""
            return f"`{self.before.strip()}`{block} deleted at {path}:{self.line}, no model call"
        edit = f"`{self.before.strip()}` -> `{self.after.strip()}`"
        return f"the edit {edit} at {path}:{self.line}, no model call"


Sources = list[tuple[FileView, tuple[int, int] | None]]


def mutant_candidates(sources: Sources, limit: int) -> list[tuple[str, Mutant]]:
    """(path, mutant) for the Python files' function bodies, at most ``limit`` shared evenly between the
    sources in their order (what one leaves unused goes to those after it): each a file shown whole or
    as an excerpt (None: its shown lines), or a suspect function's (first, last) lines in its file."""
    return _candidates(sources, limit, deleting=False)


def deletion_candidates(sources: Sources, limit: int) -> list[tuple[str, Mutant]]:
    """Like mutant_candidates, each the file with one statement of a function body deleted (a statement
    on a line of its own, not the only one of its block), the first ones first."""
    return _candidates(sources, limit, deleting=True)


def _candidates(sources: Sources, limit: int, deleting: bool) -> list[tuple[str, Mutant]]:
    sources = [s for s in sources if s[0].path.endswith(".py")]
    parsed: dict[str, _Parsed | None] = {}  # a file with several suspects is parsed once
    found: list[tuple[str, Mutant]] = []
    for index, (view, span) in enumerate(sources):
        share = math.ceil((limit - len(found)) / (len(sources) - index))
        if view.path not in parsed:
            parsed[view.path] = _Parsed.of(view.text)
        if (file := parsed[view.path]) is not None:
            lines = file.body_lines(span, view.shown_part)
            edits = file.deletions(lines, share) if deleting else file.mutants(lines, share)
            found += [(view.path, mutant) for mutant in edits]
    return found[:limit]


def body_lines(text: str, span: tuple[int, int] | None = None, shown: str | None = None) -> list[int]:
    """The lines of the function bodies of ``text`` (their docstrings left out), in order: within
    ``span`` when given, else those ``shown`` holds (an excerpt) when given, else all."""
    file = _Parsed.of(text)
    return file.body_lines(span, shown) if file is not None else []


def mutants(text: str, lines: Iterable[int], limit: int) -> list[Mutant]:
    """Up to ``limit`` one-edit variants of ``text`` on ``lines`` (in the order given: the likeliest
    first), each a different program that still parses; none for text that does not parse."""
    file = _Parsed.of(text)
    return file.mutants(lines, limit) if file is not None else []


@dataclass
class _Parsed:
    """A file tokenized and parsed once for all the edits of all its sources. An edit is checked by
    parsing only the function it is in, not the file: pyparsing's 6,700-line core.py took 7.8 s for 24."""

    source: list[str]  # lines as tokenize and ast count them (not at \f or \x1c)
    tokens: dict[int, list[tokenize.TokenInfo]]  # each line's tokens that start and end on it
    functions: list[tuple[int, int, bool]]  # each def's first and last line, and whether it is indented
    body: set[int]  # the lines of function bodies, their docstrings left out
    deletable: dict[int, int]  # a statement's first line -> its last: its block goes on without it

    @classmethod
    def of(cls, text: str) -> _Parsed | None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        tokens: dict[int, list[tokenize.TokenInfo]] = {}
        for token in _tokens(text):
            if token.start[0] == token.end[0] and token.type not in _LAYOUT:
                tokens.setdefault(token.start[0], []).append(token)
        functions: list[tuple[int, int, bool]] = []
        body: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append((node.lineno, node.end_lineno or node.lineno, node.col_offset > 0))
                statements = node.body[1:] if ast.get_docstring(node, clean=False) is not None else node.body
                for statement in statements:
                    body.update(range(statement.lineno, (statement.end_lineno or statement.lineno) + 1))
        deletable = {first: last for first, last in _deletable(tree).items() if first in body}
        return cls(io.StringIO(text).readlines(), tokens, functions, body, deletable)

    def body_lines(self, span: tuple[int, int] | None, shown: str | None) -> list[int]:
        lines = [line.rstrip("\r\n") for line in self.source]
        shown_lines = set(shown.splitlines()) if shown is not None and span is None else None
        return [n for n in sorted(self.body)
                if (span is None or span[0] <= n <= span[1])
                and (shown_lines is None or lines[n - 1] in shown_lines)]

    def mutants(self, lines: Iterable[int], limit: int) -> list[Mutant]:
        source = self.source
        found: list[Mutant] = []
        seen: set[tuple[int, str]] = set()  # (line, its edit): the whole file follows from it
        originals: dict[tuple[int, int], str | None] = {}
        for number in lines:
            if not 1 <= number <= len(source):
                continue
            line = source[number - 1]
            first, last, indented = self._function_of(number)
            if (first, last) not in originals:
                originals[first, last] = _dump(source[first - 1:last], indented)
            for changed in _line_variants(line, self.tokens.get(number, [])):
                if changed == line or (number, changed) in seen:
                    continue
                edited = [*source[first - 1:number - 1], changed, *source[number:last]]
                if _dump(edited, indented) in (None, originals[first, last]):
                    continue
                seen.add((number, changed))
                candidate = "".join([*source[: number - 1], changed, *source[number:]])
                found.append(Mutant(number, line.rstrip("\n"), changed.rstrip("\n"), candidate))
                if len(found) >= limit:
                    return found
        return found

    def deletions(self, lines: Iterable[int], limit: int) -> list[Mutant]:
        source = self.source
        found: list[Mutant] = []
        for number in lines:
            if number not in self.deletable or len(found) >= limit:
                continue
            end = self.deletable[number]
            first, last, indented = self._function_of(number)
            if _dump([*source[first - 1:number - 1], *source[end:last]], indented) is None:
                continue  # a line continued from or into it
            candidate = "".join([*source[: number - 1], *source[end:]])
            found.append(Mutant(number, source[number - 1].rstrip("\n"), "", candidate, end - number + 1))
        return found

    def _function_of(self, number: int) -> tuple[int, int, bool]:
        """The innermost def holding the line (the one that starts last), else the whole file."""
        holding = [f for f in self.functions if f[0] <= number <= f[1]]
        return max(holding) if holding else (1, len(self.source), False)


def _deletable(tree: ast.AST) -> dict[int, int]:
    """First line -> last line of each statement that may be deleted: one of a _DELETABLE kind on a line
    of its own, or an ``if`` with no ``else`` whole (a guard too many: idna 3.7->3.8's `if v == 0: raise`,
    on the real projects' tune half), in a block of more than one (the first statement of a body that is
    a docstring left out), not in a ``while`` loop's body: what makes the loop end is in there, and a
    candidate that hangs costs a whole test time limit."""
    lines: dict[int, int] = {}  # line -> statements starting on it
    deletable: dict[int, int] = {}
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list) or len(block) < 2 or not isinstance(block[0], ast.stmt):
                continue
            for statement in block:
                lines[statement.lineno] = lines.get(statement.lineno, 0) + 1
                docstring = isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
                looping = isinstance(node, ast.While) and field == "body"
                last = statement.end_lineno or statement.lineno
                simple = isinstance(statement, _DELETABLE) and not docstring and statement.lineno == last
                guard = isinstance(statement, ast.If) and not statement.orelse
                if (simple or guard) and not looping:
                    deletable[statement.lineno] = last
    return {first: last for first, last in deletable.items() if lines[first] == 1}


def _dump(lines: list[str], indented: bool) -> str | None:
    """The syntax tree of these lines (an indented def parsed inside an ``if``), or None when they do not
    parse."""
    try:
        return ast.dump(ast.parse(("if 1:\n" if indented else "") + "".join(lines)))
    except (SyntaxError, ValueError):
        return None


def _tokens(text: str) -> list[tokenize.TokenInfo]:
    try:
        return list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return []


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
            for near in (value + 1, value - 1):
                if near >= 0 and not (added and near == 0):
                    yield _replace(line, token, str(near))
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


class Mutants:
    """One-edit variants of the suspect functions, else of the shown files' functions, then (on a real
    project) the same with one statement deleted."""

    name = "mutant"
    counts_as_attempt, keep_if_partial, needs_model = False, False, False

    def candidates(self, session: FixSession) -> Candidates:
        settings = session.settings
        sources = [(a.view, a.lines) for a in session.asks] or [(v, None) for v in session.views]
        # a deletion only where the whole suite judges it too: on small projects they passed the shown
        # tests more often wrongly than rightly (docs/guide/fixing.md)
        deleting = settings.deletions if session.checks.suite_command is not None else 0
        edits = [*mutant_candidates(sources, settings.mutants), *deletion_candidates(sources, deleting)]
        for path, mutant in edits:
            yield Proposal({path: mutant.text}, mutant.describe(path))
        return None
