"""Is a guard's new condition narrower than its old one? (It refuses fewer cases: an `or` alternative
dropped, an `and` condition added, a numeric bound moved so that fewer values are refused, `<=` made
`<`.) Used by the structural check on guards present in both versions of a function."""

from __future__ import annotations

import ast

from acode.review.evidence.ast_parts import source_of


def narrower(old: ast.expr, new: ast.expr) -> str | None:
    """Why the condition ``new`` refuses fewer cases than ``old``, or None when that cannot be shown."""
    if isinstance(old, ast.BoolOp) and isinstance(old.op, ast.Or):
        old_parts = {source_of(v) for v in old.values}
        new_parts = {source_of(v) for v in new.values} \
            if isinstance(new, ast.BoolOp) and isinstance(new.op, ast.Or) else {source_of(new)}
        dropped = old_parts - new_parts
        if dropped and new_parts < old_parts:
            return f"the guard no longer refuses `{' or '.join(sorted(dropped))}`"
    if isinstance(new, ast.BoolOp) and isinstance(new.op, ast.And):
        old_parts = {source_of(v) for v in old.values} \
            if isinstance(old, ast.BoolOp) and isinstance(old.op, ast.And) else {source_of(old)}
        new_parts = {source_of(v) for v in new.values}
        extra = new_parts - old_parts
        if extra and old_parts < new_parts:
            return f"the guard now also requires `{' and '.join(sorted(extra))}` before it refuses"
    if isinstance(old, ast.BoolOp) and isinstance(new, ast.BoolOp) and type(old.op) is type(new.op) \
            and len(old.values) == len(new.values):
        differ = [(a, b) for a, b in zip(old.values, new.values, strict=True) if source_of(a) != source_of(b)]
        if len(differ) == 1:
            return narrower(*differ[0])  # and/or are monotone: one narrower part narrows the whole
    if isinstance(old, ast.Compare) and isinstance(new, ast.Compare) and len(old.ops) == len(new.ops) == 1:
        return _looser_bound(old, new)
    return None


# For a guard `x OP bound`, how each operator's refused set grows with the bound: +1 refuses more as the
# bound rises (x < b), -1 refuses fewer (x > b).
_DIRECTION = {ast.Lt: 1, ast.LtE: 1, ast.Gt: -1, ast.GtE: -1}
_FLIP = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE}


def _looser_bound(old: ast.Compare, new: ast.Compare) -> str | None:
    o_left, o_op, o_right = _oriented(old)
    n_left, n_op, n_right = _oriented(new)
    if source_of(o_left) != source_of(n_left):
        return None
    if (type(o_op) in _DIRECTION and type(n_op) in _DIRECTION
            and _DIRECTION[type(o_op)] == _DIRECTION[type(n_op)]):
        old_bound, new_bound = _number(o_right), _number(n_right)
        direction = _DIRECTION[type(o_op)]
        if source_of(o_right) == source_of(n_right) and type(o_op) is not type(n_op):
            strict_now = isinstance(n_op, (ast.Lt, ast.Gt))
            if strict_now:
                return (f"the bound check `{source_of(old)}` became `{source_of(new)}`: the bound itself "
                        "is no longer refused")
            return None
        if old_bound is not None and new_bound is not None and (new_bound - old_bound) * direction < 0:
            return f"the bound check `{source_of(old)}` became `{source_of(new)}`: it refuses fewer values"
        if type(o_op) is type(n_op) and _raised(o_right, n_right) * direction < 0:
            return f"the bound check `{source_of(old)}` became `{source_of(new)}`: it refuses fewer values"
    return None


def _raised(old: ast.expr, new: ast.expr) -> int:
    """+1 when ``new`` is ``old`` made larger (old * k with k > 1, old + k with k > 0), -1 when made smaller,
    0 when that cannot be told."""
    if not isinstance(new, ast.BinOp) or source_of(new.left) != source_of(old):
        return 0
    k = _number(new.right)
    if k is None:
        return 0
    if isinstance(new.op, ast.Mult) and k != 1:
        return 1 if k > 1 else -1
    if isinstance(new.op, ast.Add) and k != 0:
        return 1 if k > 0 else -1
    if isinstance(new.op, ast.Sub) and k != 0:
        return -1 if k > 0 else 1
    return 0


def _oriented(cmp: ast.Compare) -> tuple[ast.expr, ast.cmpop, ast.expr]:
    """(variable side, operator, constant side): `10 < x` is read as `x > 10`."""
    left, op, right = cmp.left, cmp.ops[0], cmp.comparators[0]
    if _number(left) is not None and _number(right) is None and type(op) in _FLIP:
        return right, _FLIP[type(op)](), left
    return left, op, right


def _number(node: ast.expr) -> float | None:
    if (isinstance(node, ast.Constant) and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None
