"""The structural diff check: protections a change removes or weakens, read from the syntax trees of the
old and new version of every function the change touches (Python), never from the text of the diff.

A protection is something that stops, refuses or cleans up: a guard (``if …: raise`` / ``return``), an
``assert``, a ``raise``, a call that validates, checks a permission or compares secrets in constant time,
a lock taken (``with lock:`` / ``.acquire()``), a ``with`` block, a ``finally`` block, and what an
``except`` lets through. Deleting one is the commonest way a "simplification" becomes a vulnerability,
and a likelihood contrast cannot see it (the shorter code reads as well as the longer).

For each function present in both versions (same qualified name) whose code changed:
- a protection of the old version that the new one lacks is *removed*, unless the new version adds a
  protection over the same names (an ``assert`` turned into ``if …: raise``, a check moved into a
  ``validate_…`` call): that is a rewrite, not a removal;
- a guard whose condition the new version narrows (an ``or`` alternative dropped, an ``and`` condition
  added, a numeric bound moved so that it refuses fewer values, ``<`` ↔ ``<=``) is *weakened*;
- an ``except`` that re-raised or was narrow and now swallows a broader exception is *weakened*.
Each finding quotes the old line. Functions that are added, removed or renamed are not compared (the
analyzers read added code; a removed function is checked by its callers' change).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, replace

from acode.review.evidence.ast_parts import (
    COMMON_NAMES,
    callee_name,
    functions_of,
    names_read,
    source_of,
    source_of_body,
    strip_docstring,
    walk_own,
)
from acode.review.evidence.guard_conditions import narrower

# calls that validate input, check permissions or make a comparison safe: matched on the words of the
# callee's last name (validate_path, is_admin, check_permission, shlex.quote, hmac.compare_digest ...)
SAFETY_WORDS = frozenset({
    "validate", "validated", "valid", "verify", "verified", "authorize", "authorise", "authorized",
    "authenticate", "authenticated", "permission", "permissions", "permitted", "allowed", "sanitize",
    "sanitise", "escape", "quote", "check", "ensure", "require", "required", "csrf", "admin", "owner",
    "perm", "perms",
})
SAFETY_NAMES = frozenset({"compare_digest", "secure_filename", "is_relative_to", "commonpath", "realpath",
                          "safe_load", "literal_eval", "login_required", "has_perm"})


def is_safety_call(name: str) -> bool:
    if name.endswith(("Error", "Exception", "Warning")):
        return False  # building an exception (PermissionError) is the raise, not a check
    if name in SAFETY_NAMES:
        return True
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().split("_")
    return any(word in SAFETY_WORDS for word in words)


_LOCK_NAME = re.compile(r"(?i)(lock|mutex|semaphore|rlock|condition)")
_BROAD = {"Exception", "BaseException", None}


@dataclass(frozen=True)
class Protection:
    kind: str  # guard-raise, guard-return, assert, raise, call, lock, with, finally, except
    key: str  # what identifies it across versions (normalised source)
    line: int  # line in its version
    names: frozenset[str]  # the variables it protects
    node: ast.AST | None = None


@dataclass(frozen=True)
class Weakening:
    kind: str  # removed or weakened
    what: str  # the protection's kind
    function: str
    old_line: int  # line number in the old version
    old_text: str  # the old line, quoted
    new_line: int | None  # the function's line (or the weakened line) in the new version
    detail: str
    on_input: bool = True  # the protection tests the function's parameters or locals (not only globals)
    key: str = ""  # the protection's key (for a call: the callee)


def structural_changes(old: str, new: str, helpers: dict[str, set[str]] | None = None) -> list[Weakening]:
    """Protections removed or weakened by the change from ``old`` to ``new`` (both Python source).
    ``helpers``: functions the change adds anywhere (last name -> kinds of protection they hold; see
    ``added_helpers``), so a check moved into a new helper is not reported as removed."""
    try:
        old_tree, new_tree = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError):
        return []
    old_lines = old.splitlines()
    old_functions, new_functions = functions_of(old_tree), functions_of(new_tree)
    helpers = {**added_helpers(old, new), **(helpers or {})}
    out: list[Weakening] = []
    for name, old_fn in old_functions.items():
        new_fn = new_functions.get(name)
        if new_fn is None or ast.dump(strip_docstring(old_fn)) == ast.dump(strip_docstring(new_fn)):
            continue
        out += _compare(name, old_fn, new_fn, old_lines, helpers)
    return sorted(out, key=lambda w: (w.old_line, w.what))


def added_helpers(old: str | None, new: str) -> dict[str, set[str]]:
    """Functions in ``new`` that ``old`` lacks: last name -> the kinds of protection each holds."""
    try:
        new_functions = functions_of(ast.parse(new))
        old_functions = functions_of(ast.parse(old)) if old else {}
    except (SyntaxError, ValueError):
        return {}
    return {name.rsplit(".", 1)[-1]: {p.kind for p in protections(fn)} for name, fn in new_functions.items()
            if name not in old_functions}


def _compare(name: str, old_fn: ast.AST, new_fn: ast.AST, old_lines: list[str],
             helpers: dict[str, set[str]]) -> list[Weakening]:
    old_items, new_items = protections(old_fn), protections(new_fn)
    new_keys: dict[tuple[str, str], int] = {}
    for item in new_items:
        new_keys[(item.kind, item.key)] = new_keys.get((item.kind, item.key), 0) + 1
    old_keys = {(p.kind, p.key) for p in old_items}
    added = [p for p in new_items if (p.kind, p.key) not in old_keys]
    delegated = _delegations(old_fn, new_fn, helpers)
    old_raises, new_raises = _raise_texts(old_fn), _raise_texts(new_fn)
    out: list[Weakening] = []
    for item in old_items:
        left = new_keys.get((item.kind, item.key), 0)
        if left:
            new_keys[(item.kind, item.key)] = left - 1
            continue
        quote = old_lines[item.line - 1].strip() if 0 < item.line <= len(old_lines) else item.key
        weaker = _weakened_guard(item, added) if item.kind.startswith("guard") else None
        if weaker is not None:
            replacement, why = weaker
            out.append(Weakening("weakened", item.kind, name, item.line, quote, replacement.line, why))
            continue
        if item.kind == "except":
            continue  # handled below, handler by handler
        if _replaced(item, added) or _moved(item, delegated):
            continue
        if item.kind == "guard-raise" and _guard_raises(item) and all(
                new_raises[text] >= old_raises[text] for text in _guard_raises(item)):
            continue  # the same raise is still there under a restructured condition (if/elif/else)
        what = f"the call to {item.key}()" if item.kind == "call" else f"this {_LABEL[item.kind]}"
        out.append(Weakening("removed", item.kind, name, item.line, quote, getattr(new_fn, "lineno", None),
                             f"the change removes {what} from {name}()", key=item.key))
    out += _weakened_handlers(name, old_fn, new_fn, old_lines)
    own = _own_names(old_fn)
    by_line = {p.line: p for p in old_items}
    out = [replace(w, on_input=_reads_any(by_line[w.old_line].node, own)) if w.old_line in by_line else w
           for w in out]
    return _one_per_place(out, old_items)


def _own_names(fn: ast.AST) -> set[str]:
    """The function's parameters and the names it assigns."""
    args = getattr(fn, "args", None)
    names = {a.arg for a in ([*args.posonlyargs, *args.args, *args.kwonlyargs] if args else [])}
    if args and args.vararg:
        names.add(args.vararg.arg)
    if args and args.kwarg:
        names.add(args.kwarg.arg)
    names |= {n.id for n in walk_own(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return names


def _reads_any(node: ast.AST | None, names: set[str]) -> bool:
    return node is None or any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


_RANK = ["guard-raise", "guard-return", "except", "lock", "finally", "assert", "call", "with", "raise"]


def _one_per_place(found: list[Weakening], old_items: list[Protection]) -> list[Weakening]:
    """One finding per old line (a guard, not also the check call in its condition), and no separate
    finding for a raise inside a guard or handler that is already reported."""
    spans = [(p.line, getattr(p.node, "end_lineno", p.line) or p.line) for p in old_items
             if p.kind.startswith("guard") and any(w.old_line == p.line for w in found)]
    spans += [(w.old_line, w.old_line + 3) for w in found if w.what == "except"]
    best: dict[int, Weakening] = {}
    for item in found:
        if item.what in ("raise", "call") and any(first < item.old_line <= last for first, last in spans):
            continue
        held = best.get(item.old_line)
        if held is None or _RANK.index(item.what) < _RANK.index(held.what):
            best[item.old_line] = item
    return list(best.values())


_LABEL = {"guard-raise": "guard (if …: raise)", "guard-return": "early return guard", "assert": "assert",
          "raise": "raise", "call": "check call", "lock": "lock acquisition", "with": "with block",
          "finally": "finally block", "except": "exception handler"}


def protections(fn: ast.AST) -> list[Protection]:
    """The protections inside one function (nested functions and classes are compared on their own)."""
    out: list[Protection] = []
    in_guard = {id(stmt) for node in walk_own(fn) if isinstance(node, ast.If) and _exits(node.body)
                for stmt in node.body}
    for node in walk_own(fn):
        if id(node) in in_guard and isinstance(node, ast.Raise):
            continue  # the guard around it stands for it
        if isinstance(node, ast.If) and _exits(node.body):
            kind = "guard-raise" if any(isinstance(s, ast.Raise) for s in node.body) else "guard-return"
            out.append(Protection(kind, source_of(node.test), node.lineno, names_read(node.test), node))
        elif isinstance(node, ast.Assert):
            out.append(Protection("assert", source_of(node.test), node.lineno, names_read(node.test), node))
        elif isinstance(node, ast.Raise):
            out.append(Protection("raise", source_of(node.exc) if node.exc else "raise", node.lineno,
                                  names_read(node.exc) if node.exc else frozenset(), node))
        elif isinstance(node, ast.Call):
            callee = callee_name(node.func)
            if callee.endswith(".acquire") or callee == "acquire":
                out.append(Protection("lock", source_of(node.func), node.lineno, names_read(node.func), node))
            elif callee and is_safety_call(callee.rsplit(".", 1)[-1]):
                out.append(Protection("call", callee, node.lineno, names_read(node), node))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                text = source_of(item.context_expr)
                kind = "lock" if _LOCK_NAME.search(text) else "with"
                out.append(Protection(kind, text, node.lineno, names_read(item.context_expr), node))
        elif isinstance(node, ast.Try) and node.finalbody:
            out.append(Protection("finally", "finally:" + source_of_body(node.finalbody),
                                  node.finalbody[0].lineno - 1,
                                  frozenset(n for s in node.finalbody for n in names_read(s)), node))
    return out


def _weakened_guard(old: Protection, added: list[Protection]) -> tuple[Protection, str] | None:
    """A guard of the same kind in the new version over the same names whose condition holds for fewer
    values."""
    assert isinstance(old.node, ast.If)
    for new in added:
        if new.kind != old.kind or not (old.names & new.names):
            continue
        assert isinstance(new.node, ast.If)
        why = narrower(old.node.test, new.node.test)
        if why:
            return new, why
    return None


def _replaced(old: Protection, added: list[Protection]) -> bool:
    """The new version adds a protection over the same names (an assert turned into if/raise, a check moved
    into a validating call). A lock, finally or check call must be replaced by one of its own kind."""
    strict = {"lock": {"lock"}, "finally": {"finally", "with"}, "with": {"with", "finally", "lock"},
              "call": {"call"}}
    kinds = strict.get(old.kind, {"guard-raise", "guard-return", "assert", "raise", "call"})
    for new in added:
        if new.kind not in kinds:
            continue
        if (old.kind == "call"
                and old.key.rsplit(".", 1)[-1] == "compare_digest" != new.key.rsplit(".", 1)[-1]):
            continue  # only another constant-time comparison replaces a constant-time comparison
        if old.kind == "call" and old.key.rsplit(".", 1)[-1] == new.key.rsplit(".", 1)[-1]:
            return True
        if old.names and old.names & new.names:
            return True
        if not old.names and new.kind == old.kind:
            return True
    return False


def _raise_texts(fn: ast.AST) -> Counter:
    return Counter(source_of(n) for n in walk_own(fn) if isinstance(n, ast.Raise))


def _guard_raises(guard: Protection) -> list[str]:
    body = getattr(guard.node, "body", [])
    return [source_of(stmt) for stmt in body if isinstance(stmt, ast.Raise)]


def _delegations(old_fn: ast.AST, new_fn: ast.AST,
                 helpers: dict[str, set[str]]) -> list[tuple[set[str], frozenset[str]]]:
    """Calls the new version makes that the old one did not: (protection kinds the callee is known to hold,
    empty when it is not part of the change; the names passed to it)."""
    before = {callee_name(n.func).rsplit(".", 1)[-1] for n in walk_own(old_fn) if isinstance(n, ast.Call)}
    out = []
    for node in walk_own(new_fn):
        if isinstance(node, ast.Call):
            last = callee_name(node.func).rsplit(".", 1)[-1]
            if last and last not in before and last not in COMMON_NAMES:
                passed = frozenset().union(*(names_read(a) for a in node.args),
                                           *(names_read(k.value) for k in node.keywords))
                out.append((helpers.get(last, set()), passed))
    return out


def _moved(old: Protection, delegated: list[tuple[set[str], frozenset[str]]]) -> bool:
    """The protection went into a helper the new version now calls: a helper added by the change that holds
    a protection of the same kind, or a call that is handed the very values the protection tested."""
    return any(old.kind in kinds or (kinds and old.kind == "raise") or (old.names & passed)
               for kinds, passed in delegated)


def _weakened_handlers(name: str, old_fn: ast.AST, new_fn: ast.AST, old_lines: list[str]) -> list[Weakening]:
    """An except clause that re-raised (or caught a narrow type) and now swallows a broader one."""
    old_handlers = [h for h in walk_own(old_fn) if isinstance(h, ast.ExceptHandler)]
    new_handlers = [h for h in walk_own(new_fn) if isinstance(h, ast.ExceptHandler)]
    out = []
    for index, old in enumerate(old_handlers):
        if index >= len(new_handlers):
            break
        new = new_handlers[index]
        old_type, new_type = _handler_type(old), _handler_type(new)
        quote = old_lines[old.lineno - 1].strip()
        if _reraises(old) and not _reraises(new):
            out.append(Weakening("weakened", "except", name, old.lineno, quote, new.lineno,
                                 "the handler re-raised (or raised) and now swallows the exception"))
        elif old_type not in _BROAD and new_type in _BROAD and not _reraises(new):
            caught = new_type or "everything (bare except)"
            out.append(Weakening("weakened", "except", name, old.lineno, quote, new.lineno,
                                 f"the handler caught {old_type} and now swallows {caught}"))
    return out


def _handler_type(handler: ast.ExceptHandler) -> str | None:
    return source_of(handler.type) if handler.type is not None else None


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(n, ast.Raise) for stmt in handler.body for n in ast.walk(stmt))


def _exits(body: list[ast.stmt]) -> bool:
    """A guard's body: it ends by leaving (raise/return/continue/break), within a few statements."""
    return bool(body) and len(body) <= 3 and isinstance(body[-1],
                                                        (ast.Raise, ast.Return, ast.Continue, ast.Break))
