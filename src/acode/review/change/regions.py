"""Where a file changed, as regions a model can read twice: the same lines before the change (the
prefix: documentation, signature, the code above), then either the old or the new lines followed by the
unchanged rest of the enclosing function (so a change that breaks what comes after it is seen too)."""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from dataclasses import dataclass

MERGE_GAP = 3  # changes separated by fewer unchanged lines are one region


@dataclass(frozen=True)
class Region:
    path: str
    prefix: str  # identical lines before the change (from the new file)
    old_text: str  # removed lines + the unchanged lines after them
    new_text: str  # added lines + the same unchanged lines
    # 1-based number of the first added line in the new file (or of the line after a deletion)
    first_line: int
    added: tuple[int, ...]  # 1-based numbers of the added lines in the new file
    removed: tuple[str, ...]  # the removed lines' text
    size: int  # changed lines (removed + added), for choosing the largest regions
    code_changed: bool = True  # False when every changed line is a comment, a docstring or other string text

    @property
    def changed_code(self) -> str:
        """The removed lines, then the added ones (the tail both versions share left out)."""
        return "\n".join(list(self.removed) + self.new_text.splitlines()[: len(self.added)])


def changed_regions(path: str, old: str, new: str, *, context_lines: int = 60,
                    after_lines: int = 30) -> list[Region]:
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    groups = _merged([op[1:] for op in matcher.get_opcodes() if op[0] != "equal"])
    ends = _unit_ends(path, new)
    # comments, docstrings, message strings and import statements: wording and dependencies, not behaviour
    old_prose = prose_lines(path, old) | import_lines(path, old)
    new_prose = prose_lines(path, new) | import_lines(path, new)
    regions: list[Region] = []
    for index, (i1, i2, j1, j2) in enumerate(groups):
        next_start = groups[index + 1][2] if index + 1 < len(groups) else len(new_lines)
        tail = min(_unit_end(ends, j1, j2, after_lines), next_start) - j2
        tail = max(0, tail)
        prefix = "".join(new_lines[max(0, j1 - context_lines) : j1])
        old_text = "".join(old_lines[i1:i2] + old_lines[i2 : i2 + tail])
        new_text = "".join(new_lines[j1 : j2 + tail])
        if _squash(old_text) == _squash(new_text):
            continue  # whitespace only
        regions.append(Region(path=path, prefix=prefix, old_text=old_text, new_text=new_text,
                              first_line=j1 + 1, added=tuple(range(j1 + 1, j2 + 1)),
                              removed=tuple(line.rstrip("\n") for line in old_lines[i1:i2]),
                              size=(i2 - i1) + (j2 - j1),
                              code_changed=_any_code(old_lines, range(i1, i2), old_prose)
                              or _any_code(new_lines, range(j1, j2), new_prose)))
    return regions


def _any_code(lines: list[str], indexes: range, prose: set[int]) -> bool:
    return any(lines[i].strip() and i + 1 not in prose for i in indexes)


_COMMENT_STARTS = ("#", "//", "/*", "*", "--", "<!--")
_PROSE_TOKENS = {tokenize.COMMENT, tokenize.STRING, tokenize.NL, tokenize.NEWLINE,
                 tokenize.INDENT, tokenize.DEDENT,
                 *(getattr(tokenize, name) for name in ("FSTRING_START", "FSTRING_MIDDLE", "FSTRING_END")
                   if hasattr(tokenize, name))}


def prose_lines(path: str, text: str) -> set[int]:
    """1-based numbers of the lines that hold only comments or string text (docstrings, message strings).
    Python files are tokenized; other files count comment-only lines."""
    lines = text.splitlines()
    if path.endswith(".py"):
        prose, code = set(), set()
        try:
            for token in tokenize.generate_tokens(io.StringIO(text).readline):
                if token.type == tokenize.ENDMARKER:
                    continue
                (prose if token.type in _PROSE_TOKENS else code).update(
                    range(token.start[0], token.end[0] + 1))
            return prose - code
        except (tokenize.TokenError, SyntaxError):
            pass
    return {n for n, line in enumerate(lines, 1) if line.strip().startswith(_COMMENT_STARTS)}


def import_lines(path: str, text: str) -> set[int]:
    """1-based numbers of the lines of import statements (Python files that parse; else none). Changing
    one changes no behaviour by itself: a name that is then missing or unused is ruff's evidence (F821,
    F401), and the code that uses it is a region of its own."""
    if not path.endswith(".py"):
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    return {n for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
            for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)}


def _squash(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _merged(ops: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    out: list[tuple[int, int, int, int]] = []
    for i1, i2, j1, j2 in ops:
        if out and j1 - out[-1][3] < MERGE_GAP:
            a1, _, b1, _ = out[-1]
            out[-1] = (a1, i2, b1, j2)
        else:
            out.append((i1, i2, j1, j2))
    return out


def _unit_ends(path: str, text: str) -> list[tuple[int, int]]:
    """(first, last) 0-based line spans of the Python functions in ``text``; empty for other files or
    code that does not parse."""
    if not path.endswith(".py"):
        return []
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    return [(node.lineno - 1, (node.end_lineno or node.lineno) - 1) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _unit_end(ends: list[tuple[int, int]], j1: int, j2: int, after_lines: int) -> int:
    """End (exclusive) of the scored text: the end of the innermost function around the change, at most
    ``after_lines`` past it; a fixed window for other files."""
    around = [(first, last) for first, last in ends if first <= j1 and last >= max(j1, j2 - 1)]
    if around:
        _, last = max(around, key=lambda span: span[0])
        return min(last + 1, j2 + after_lines)
    return j2 + min(after_lines, 10)
