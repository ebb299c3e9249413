"""Loading one version of the code under review, in the behavioural diff's child process: the function (or
a method's factory) of ``module`` as one tree has it, that tree's modules kept apart in ``MODULES`` so the
other tree imports its own. Standard library only; loaded by path from ``runner`` (its docstring
says why), never imported by acode's own process.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path

MODULES: dict[str, dict] = {}  # root -> the project's modules imported from it (inputs built on that side)


class NeedsArguments(str):
    """In place of a factory: the class cannot be built without arguments (the text says why)."""


def load(root: str, module: str, qualname: str, kind: str):
    """(a factory of the function or of the bound method on a fresh object, the function, the class of a
    method run on instances) for ``qualname`` of ``module`` as it is in ``root``; the factory is a
    ``NeedsArguments`` when the class cannot be built without arguments. The root's modules are dropped from
    ``sys.modules`` afterwards so the other side imports its own."""
    roots = [str(Path(root) / "src"), root]
    before = set(sys.modules)
    sys.path[:0] = roots
    importlib.invalidate_caches()
    try:
        mod = importlib.import_module(module)
        owner, _, name = qualname.rpartition(".")
        if kind == "method":
            cls = getattr(mod, owner)
            raw = inspect.getattr_static(cls, name)
            if isinstance(raw, (staticmethod, classmethod)):
                bound = getattr(cls, name)
                return lambda: bound, bound, None
            try:
                cls()
            except TypeError as exc:  # it needs arguments: only call sequences build it (from annotations)
                return NeedsArguments(str(exc)), getattr(cls, name), cls
            return (lambda: getattr(cls(), name)), getattr(cls, name), cls
        fn = getattr(mod, qualname)
        return (lambda: fn), fn, None
    finally:
        del sys.path[:len(roots)]
        top = module.split(".")[0]
        for key in set(sys.modules) - before:
            found = sys.modules.get(key)
            file = str(getattr(found, "__file__", "") or "")
            if key == top or key.startswith(top + ".") or file.startswith(root):
                MODULES.setdefault(root, {})[key] = sys.modules.pop(key)
