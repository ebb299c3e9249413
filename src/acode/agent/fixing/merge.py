"""Reading a Python reply that holds only part of a file: small models asked for "the whole file" often
write back just the functions they changed (or only the new one), and for a long file acode asks for
only the changed functions. Such a reply is merged into the file by definition name instead of
replacing it, so nothing the reply leaves out is lost:

- a function or class the reply defines replaces the one of the same name (decorators included);
- a class written back with only some of its methods has just those methods replaced (or added);
- a function that is not a top-level name of the file but the method of exactly one class replaces
  that method, indented to fit;
- a definition new to the file is added at the end; an import the file lacks goes after its imports;
- a reply that keeps every top-level definition of the file is taken as the whole file;
- when the prompt showed only part of a long file (excerpt.py), a definition it did not show is never
  replaced (the model saw at most its signature), and the reply is never the whole file."""

from __future__ import annotations

import ast
import textwrap

_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DEFS = (*_FUNCS, ast.ClassDef)


def _span(node: ast.stmt) -> tuple[int, int]:
    """0-based [start, end) line range of a statement, decorators included."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
    return start, node.end_lineno or node.lineno


def _defs(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    return {node.name: node for node in body if isinstance(node, _DEFS)}


def _indent(lines: list[str], width: int) -> list[str]:
    text = textwrap.dedent("\n".join(lines))
    return textwrap.indent(text, " " * width).splitlines()


class _Edits:
    """Line replacements on the old file, applied bottom-up so earlier spans stay valid."""

    def __init__(self, old: str):
        self.lines = old.splitlines()
        self.replacements: list[tuple[int, int, list[str]]] = []

    def replace(self, node: ast.stmt, body: list[str]) -> None:
        start, end = _span(node)
        self.replacements.append((start, end, _indent(body, node.col_offset)))

    def insert_after(self, node: ast.stmt, body: list[str], indent: int) -> None:
        end = _span(node)[1]
        self.replacements.append((end, end, ["", *_indent(body, indent)]))

    def apply(self) -> list[str]:
        for start, end, body in sorted(self.replacements, key=lambda r: (r[0], r[1]), reverse=True):
            self.lines[start:end] = body
        return self.lines


def merge_partial(old: str, new: str, *, shown: str | None = None) -> str:
    """``new`` as the whole file when it keeps every top-level definition of ``old``; else ``old`` with the
    reply's definitions and imports merged in. Both must parse (callers check ``new``). ``shown``: the
    part of ``old`` the prompt showed (an excerpt): the reply is always merged, and a definition of
    ``old`` that ``shown`` does not hold is kept as it is (the model saw at most its signature)."""
    try:
        old_tree, new_tree = ast.parse(old), ast.parse(new)
    except SyntaxError:
        return new
    old_defs, new_defs = _defs(old_tree.body), _defs(new_tree.body)
    if not old_defs or not new_defs or (shown is None and set(old_defs) <= set(new_defs)):
        return new
    seen = _Seen(shown)
    new_lines = new.splitlines()
    edits, appended = _Edits(old), []
    methods = _methods_by_name(old_tree)
    for name, node in new_defs.items():
        body = new_lines[slice(*_span(node))]
        target = old_defs.get(name)
        if isinstance(target, ast.ClassDef) and isinstance(node, ast.ClassDef):
            if seen(name):
                _merge_class(edits, target, node, new_lines, seen)
        elif target is not None:
            if seen(name):
                edits.replace(target, body)
        elif isinstance(node, _FUNCS) and len(methods.get(name, [])) == 1:
            if seen(name):
                edits.replace(methods[name][0], body)
        else:
            appended += ["", "", *body]
    lines = edits.apply() + appended
    imports = [
        ast.get_source_segment(new, n) or ""
        for n in new_tree.body
        if isinstance(n, ast.Import | ast.ImportFrom)
    ]
    missing = [i for i in imports if i and i not in old]
    if missing:
        first_def = min(_span(n)[0] for n in old_defs.values())
        last_import = max(
            (
                n.end_lineno or 0
                for n in old_tree.body
                if isinstance(n, ast.Import | ast.ImportFrom) and (n.end_lineno or 0) <= first_def
            ),
            default=0,
        )
        lines[last_import:last_import] = missing
    return "\n".join(lines) + "\n"


class _Seen:
    """Whether the prompt showed a definition of this name (everything, when it showed the whole file)."""

    def __init__(self, shown: str | None):
        self.names: set[str] | None = None
        if shown is not None:
            try:
                tree = ast.parse(shown)
            except SyntaxError:
                tree = ast.Module(body=[], type_ignores=[])
            self.names = {n.name for n in ast.walk(tree) if isinstance(n, _DEFS)}

    def __call__(self, name: str) -> bool:
        return self.names is None or name in self.names


def _merge_class(
    edits: _Edits, old: ast.ClassDef, new: ast.ClassDef, new_lines: list[str], seen: _Seen
) -> None:
    old_methods, new_methods = _defs(old.body), _defs(new.body)
    if set(old_methods) <= set(new_methods) and all(seen(name) for name in old_methods):
        edits.replace(old, new_lines[slice(*_span(new))])
        return
    last = old.body[-1]
    for name, node in new_methods.items():
        body = new_lines[slice(*_span(node))]
        if name in old_methods:
            if seen(name):
                edits.replace(old_methods[name], body)
        else:
            edits.insert_after(last, body, last.col_offset)


def _methods_by_name(tree: ast.Module) -> dict[str, list[ast.stmt]]:
    found: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            for name, method in _defs(node.body).items():
                found.setdefault(name, []).append(method)
    return found
