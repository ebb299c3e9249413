"""Reading a Python reply that holds only part of a file: small models asked for "the whole file" often
write back just the functions they changed (or only the new one). Such a reply is merged into the file
by top-level definition instead of replacing it, so nothing the model left out is lost:

- a function or class the reply defines replaces the one of the same name (decorators included);
- a definition new to the file is added after the last definition;
- an import the file lacks goes after the file's imports;
- a reply that keeps every top-level definition of the file is taken as the whole file."""

from __future__ import annotations

import ast

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _span(node: ast.stmt) -> tuple[int, int]:
    """0-based [start, end) line range of a statement, decorators included."""
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
    return start, node.end_lineno or node.lineno


def _names(tree: ast.Module) -> dict[str, ast.stmt]:
    return {node.name: node for node in tree.body if isinstance(node, _DEFS)}


def merge_partial(old: str, new: str) -> str:
    """``new`` as the whole file when it keeps every top-level definition of ``old``; else ``old`` with the
    reply's definitions and imports merged in. Both must parse (callers check ``new``)."""
    try:
        old_tree, new_tree = ast.parse(old), ast.parse(new)
    except SyntaxError:
        return new
    old_defs, new_defs = _names(old_tree), _names(new_tree)
    if not old_defs or set(old_defs) <= set(new_defs) or not new_defs:
        return new
    lines, new_lines = old.splitlines(), new.splitlines()
    replaced: list[tuple[int, int, list[str]]] = []
    added: list[str] = []
    for name, node in new_defs.items():
        start, end = _span(node)
        body = new_lines[start:end]
        if name in old_defs:
            replaced.append((*_span(old_defs[name]), body))
        else:
            added += ["", "", *body]
    for start, end, body in sorted(replaced, reverse=True):
        lines[start:end] = body
    imports = [ast.get_source_segment(new, n) or "" for n in new_tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    missing = [i for i in imports if i and i not in old]
    if added:
        lines += added
    if missing:
        last_import = max((n.end_lineno or 0 for n in old_tree.body if isinstance(n, ast.Import | ast.ImportFrom)
                           and n.end_lineno and n.end_lineno <= _first_def_line(old_tree)), default=0)
        lines[last_import:last_import] = missing
    return "\n".join(lines) + "\n"


def _first_def_line(tree: ast.Module) -> int:
    return min((_span(n)[0] + 1 for n in tree.body if isinstance(n, _DEFS)), default=10**9)
