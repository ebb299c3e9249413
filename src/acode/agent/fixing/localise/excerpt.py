"""What a prompt shows of a long Python file: its imports, an outline of the definitions it leaves out
(as comments, so a reply that copies them defines nothing), and in full only the functions and classes
the failing tests reach (locate.py's focus). The reply is merged by name (merge.py), so whatever is not
shown stays byte for byte as it was."""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from acode.agent.fixing.localise.locate import Focus

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFS = (*_FUNCS, ast.ClassDef)
CLASS_LINES = 80  # a focused class up to this long is shown whole; a longer one only its focused methods
MAX_SHOWN_LINES = 300  # of focused definitions: the prompt of a long file stays about this size
MAX_SHOWN_CHARS = 6000  # ... and this many characters: the 1.5B read a 15,000-character file 13 minutes
MAX_OUTLINE = 10  # this few definitions left out are all listed; of more, those the shown code calls
MAX_CALLED = 20


def span(node: ast.stmt) -> tuple[int, int]:
    """1-based first (decorators included) and last line of a definition."""
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]), node.end_lineno or 0


def _signature(node: ast.stmt) -> str:
    if isinstance(node, ast.ClassDef):
        bases = ", ".join(ast.unparse(b) for b in node.bases)
        return f"class {node.name}({bases})" if bases else f"class {node.name}"
    assert isinstance(node, _FUNCS)
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


def _reached(node: ast.stmt, focus: Focus) -> tuple[bool, bool]:
    """(a traceback line falls inside it, the tests use its name)."""
    start, end = span(node)
    return any(start <= line <= end for line in focus.lines), getattr(node, "name", None) in focus.names


class _Shown:
    def __init__(self, lines: list[str], outline: bool, max_chars: int):
        self.lines, self.outline, self.max_chars = lines, outline, max_chars
        self.blocks: list[tuple[int, list[str]]] = []  # (first line, text lines), put in file order
        self.count = 0

    @property
    def chars(self) -> int:
        return sum(len(line) + 1 for _, block in self.blocks for line in block)

    def fits(self, node: ast.stmt) -> bool:
        """The first definition always; the next ones while the lines and characters shown stay within
        the limits (a long class counts only the part of it that would be shown)."""
        if not self.blocks:
            return True
        start, end = span(node)
        size = sum(len(line) + 1 for line in self.lines[start - 1 : end])
        if isinstance(node, ast.ClassDef) and end - start + 1 > CLASS_LINES:
            return self.chars < self.max_chars  # its part shown is decided inside, while room is left
        return self.count + end - start <= MAX_SHOWN_LINES and self.chars + size <= self.max_chars

    def add(self, node: ast.stmt, focus: Focus) -> None:
        start, end = span(node)
        if isinstance(node, ast.ClassDef) and end - start + 1 > CLASS_LINES:
            self._add_class_part(node, focus)
            return
        self.blocks.append((start, self.lines[start - 1 : end]))
        self.count += end - start + 1

    def _add_class_part(self, node: ast.ClassDef, focus: Focus) -> None:
        """The class's header, its other methods as one comment line, and the methods the traceback goes
        through or the tests call (else ``__init__``)."""
        first_body = node.body[0]
        header_end = first_body.end_lineno if _is_docstring(first_body) else span(first_body)[0] - 1
        methods = [n for n in node.body if isinstance(n, _FUNCS)]
        shown = [m for m in methods if any(_reached(m, focus)) or m.name in focus.attributes] or [
            m for m in methods if m.name == "__init__"
        ]
        block = self.lines[span(node)[0] - 1 : header_end or node.lineno]
        room = self.max_chars - self.chars - sum(len(line) + 1 for line in block)
        # those in the traceback first; the first always, the next ones while they fit
        kept: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        for method in sorted(shown, key=lambda m: not _reached(m, focus)[0]):
            room -= sum(len(line) + 1 for line in self.lines[span(method)[0] - 1 : span(method)[1]])
            if kept and room < 0:
                break
            kept.append(method)
        shown = [m for m in shown if m in kept]
        others = list(dict.fromkeys(m.name for m in methods if m not in shown))  # overloads: once
        if others:  # a test class's other tests as a count: their names filled a test file's prompt room
            indent = " " * first_body.col_offset
            listed = ", ".join(others) if self.outline else f"{len(others)}"
            block.append(f"{indent}# other methods, not shown (unchanged): {listed}")
        for method in shown:
            start, end = span(method)
            block += ["", *self.lines[start - 1 : end]]
            self.count += end - start + 1
        self.blocks.append((span(node)[0], block))


def _inherited(definitions: Sequence[ast.stmt], reached: Sequence[ast.stmt],
               focus: Focus) -> list[ast.ClassDef]:
    """The classes of this file that a reached class inherits a method from that the tests use and that it
    does not define itself (``str(EnvironHeaders(...))`` runs ``Headers.__str__``): shown as well, as
    their header and those methods."""
    classes = {n.name: n for n in definitions if isinstance(n, ast.ClassDef)}
    found: list[ast.ClassDef] = []
    for node in reached:
        if not isinstance(node, ast.ClassDef):
            continue
        missing = {a for a in focus.attributes if a not in _methods(node)}
        for base in (b.id for b in node.bases if isinstance(b, ast.Name)):
            parent = classes.get(base)
            if parent is None or parent in found or parent is node:
                continue
            if missing & _methods(parent):
                found.append(parent)
            missing -= _methods(parent)
    return found


def _methods(node: ast.ClassDef) -> set[str]:
    return {n.name for n in node.body if isinstance(n, _FUNCS)}


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
        node.value.value, str
    )


def excerpt(text: str, path: str, focus: Focus, *, outline: bool = True,
            max_chars: int = MAX_SHOWN_CHARS) -> str | None:
    """The shown part of ``text``, or None when the focus reaches none of its definitions. ``outline``:
    list the signatures of the definitions left out (a module's; a test file's other tests are noise).
    ``max_chars``: of the definitions shown in full, after the first."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    definitions = [n for n in tree.body if isinstance(n, _DEFS)]
    in_traceback = [n for n in definitions if _reached(n, focus)[0]]
    named = [n for n in definitions if _reached(n, focus)[1] and n not in in_traceback]
    if not in_traceback and not named:
        return None
    named += [n for n in _inherited(definitions, [*in_traceback, *named], focus) if n not in named]
    shown = _Shown(lines, outline, max_chars)
    for node in [*reversed(in_traceback), *named]:  # the frame that raised first: pytest prints it last
        if not shown.fits(node):
            continue
        shown.add(node, focus)
    chosen = {start for start, _ in shown.blocks}
    used = set(re.findall(r"\w+", "\n".join(line for _, block in shown.blocks for line in block)))
    hidden = [n for n in definitions if span(n)[0] not in chosen]
    called = [n for n in hidden if n.name in used]
    # the signatures of what the shown code calls; the rest only when few: a small model copies the
    # outline into its reply (the 1.5B: 110 of 194 tokens), so a long one costs every answer
    listed = called[:MAX_CALLED] if len(hidden) > MAX_OUTLINE else hidden
    imports = [
        segment for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)
        if (segment := ast.get_source_segment(text, n))
    ]
    head = [f"# {path} ({len(lines)} lines): shown are its imports and what the failing tests reach"]
    if outline and listed:
        head.append("# not shown, unchanged:")
        head += [f"#   {_signature(n)[:100]}" for n in listed]
    if outline and len(hidden) > len(listed):
        others = len(hidden) - len(listed)
        head.append(f"# {'and ' if listed else ''}{others} other definitions, not shown, unchanged")
    parts = ["\n".join(head + imports)]
    parts += ["\n".join(block) for _, block in sorted(shown.blocks)]
    return "\n\n\n".join(parts) + "\n"
