"""What the code itself says a changed function should do, for the question of which outcome is right: its
signature (the parameters' and the return's annotations) and the ``assert``s its body states — only those
both versions state alike, so the text is the same whichever side is old (a fix and its revert are asked
the same question) and no version's new implementation is passed off as its specification. The docstring
is given beside it by the question itself (``FunctionResult.function.docstring``, examples included).
"""

from __future__ import annotations

import ast

MAX_CHARS = 500


def function_spec(old_text: str | None, new_text: str | None, qualname: str) -> str:
    """The signature and the shared asserts of ``qualname`` (``f`` or ``Class.method``), '' when neither
    version parses or defines it."""
    old, new = _find(old_text, qualname), _find(new_text, qualname)
    if old is None or new is None:
        return ""
    old_signature, new_signature = _signature(old), _signature(new)
    lines = [new_signature] if old_signature == new_signature else []
    kept = set(_asserts(old))
    lines += [f"    {text}" for text in _asserts(new) if text in kept]
    spec = "\n".join(lines)
    return spec if len(spec) <= MAX_CHARS else spec[:MAX_CHARS].rsplit("\n", 1)[0]


def _find(text: str | None, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    if not text:
        return None
    try:
        body: list[ast.stmt] = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    *owners, name = qualname.split(".")
    for owner in owners:
        body = next((node.body for node in body if isinstance(node, ast.ClassDef) and node.name == owner), [])
    return next((node for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.name == name), None)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"def {node.name}({ast.unparse(node.args)}){returns}: ..."


def _asserts(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [ast.unparse(item) for item in ast.walk(node) if isinstance(item, ast.Assert)]
