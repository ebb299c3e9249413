"""Small readings of Python syntax trees shared by the structural check: the functions of a module by
qualified name, a function's own nodes, callee names, the names an expression reads, source text."""

from __future__ import annotations

import ast
import builtins


def functions_of(tree: ast.AST) -> dict[str, ast.AST]:
    """Qualified name -> function node, for every function and method (nested ones included)."""
    out: dict[str, ast.AST] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qual = f"{prefix}{child.name}"
                out.setdefault(qual, child)
                visit(child, qual + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return out


def walk_own(fn: ast.AST):
    """Nodes of ``fn``'s own body, not of functions or classes defined inside it."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def strip_docstring(fn: ast.AST) -> ast.AST:
    body = getattr(fn, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        return ast.Module(body=body[1:], type_ignores=[])
    return ast.Module(body=body, type_ignores=[])


def callee_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = callee_name(func.value)
        return f"{inner}.{func.attr}" if inner else func.attr
    return ""


COMMON_NAMES = frozenset(dir(builtins)) | {"self", "cls"}


def names_read(node: ast.AST | None) -> frozenset[str]:
    """The variables and attributes an expression reads (builtins and self/cls left out: they would make
    unrelated protections look alike)."""
    if node is None:
        return frozenset()
    found = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    return frozenset(found - COMMON_NAMES)


def source_of(node: ast.AST | None) -> str:
    return ast.unparse(node) if node is not None else ""


def source_of_body(body: list[ast.stmt]) -> str:
    return "; ".join(ast.unparse(s) for s in body)
