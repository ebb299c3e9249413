"""Inputs of the project's own types (``runner``, in the child process). A changed function that
takes the project's objects (a parsed statement, a schema's field, a command) raises on every text and
number drawn, so nothing is compared. The project's tests show how its objects are built: their literal
calls of the project's functions and classes (``parse('select 1')``). Each such call is made on each side
(the old tree's ``parse``, then the new tree's), and what it returns is kept when it is the project's own
type, with the project's objects inside it one level down (the elements of a returned tuple, an attribute
holding a list of them): ``parse('select 1')[0].tokens[2]``. The classes the changed module names are kept
too (a function that takes the class to look for). Each value is a ``Made``: the value on each side, so the
old function gets the old tree's object and the new function the new tree's; Hypothesis draws them with the
other inputs. Standard library only, nothing of acode: the runner loads this file by its path."""

from __future__ import annotations

import inspect
import sys
import time

MAX_VALUES = 30
MAX_CLASSES = 8
PER_CALL = 8  # values kept from one call (it and the objects inside it)
PARTS = 12  # elements of a tuple or list looked into
SECONDS = 1.5  # building them, per function: a maker that is slow leaves the rest out

outcomes = sys.modules["acode_behaviour_runner_outcomes"]


class Made:
    """One input built by the project's own code, on each side: ``values`` (old, new); its text is the code
    that builds it."""

    def __init__(self, text: str, values: tuple) -> None:
        self.text, self.values = text, values

    def __repr__(self) -> str:
        return self.text

    def __deepcopy__(self, memo):
        return self


def sides(args: tuple, kwargs: dict, side: int) -> tuple[tuple, dict]:
    """The arguments as side ``side`` (0 old, 1 new) gets them: each ``Made`` its value there."""
    pick = lambda value: value.values[side] if isinstance(value, Made) else value
    return tuple(pick(a) for a in args), {k: pick(v) for k, v in kwargs.items()}


def built_by_project(args: tuple, kwargs: dict) -> bool:
    return any(isinstance(v, Made) for v in (*args, *kwargs.values()))


def _project(value, top: str) -> bool:
    module = getattr(type(value), "__module__", "") or ""
    return module == top or module.startswith(top + ".")


def _resolve(name: str, namespaces: list[dict]):
    for namespace in namespaces:
        if name in namespace:
            return namespace[name]
    return None


def _namespaces(fn_globals: dict, modules: dict, top: str) -> list[dict]:
    """Where a test's callee is looked up: the changed module, the package, the package's other modules."""
    package = modules.get(top)
    return [fn_globals, *([vars(package)] if package is not None else []),
            *(vars(m) for name, m in sorted(modules.items()) if name != top)]


def _parts(value, text: str, top: str) -> list[tuple[str, object]]:
    """The project's objects in ``value`` (it, the elements of a list or tuple, the attributes of an object
    of the project, two levels down), the first of each type, as (code, object)."""
    out: dict[str, tuple[str, object]] = {}
    queue = [(text, value, 0)]
    while queue and len(out) < PER_CALL:
        code, item, depth = queue.pop(0)
        inner: list[tuple[str, object]] = []
        if isinstance(item, (list, tuple)):
            inner = [(f"{code}[{i}]", v) for i, v in enumerate(item[:PARTS])]
        elif _project(item, top):
            out.setdefault(type(item).__qualname__, (code, item))
            inner = [(f"{code}.{name}", v) for name, v in _attributes(item) if not name.startswith("_")]
        if depth < 3:
            queue += [(c, v, depth + 1) for c, v in inner
                      if isinstance(v, (list, tuple)) or _project(v, top)]
    return list(out.values())


def _attributes(item) -> list[tuple[str, object]]:
    """An object's attributes: its ``__dict__`` and its ``__slots__`` (a class may have both)."""
    out = dict(getattr(item, "__dict__", None) or {})
    for cls in type(item).__mro__:
        slots = getattr(cls, "__slots__", ())
        for name in [slots] if isinstance(slots, str) else slots:
            if name not in out and hasattr(item, name):
                out[name] = getattr(item, name)
    return list(out.items())


def _follow(value, code: str, base: str):
    """The object at ``code`` (``base`` + ``[i]`` / ``.name`` steps) inside ``value``."""
    rest = code[len(base):]
    for step in rest.replace("[", ".[").split(".")[1:]:
        value = value[int(step[1:-1])] if step.startswith("[") else getattr(value, step)
    return value


def made_values(makers: list[dict], old_fn, new_fn, old_modules: dict, new_modules: dict, top: str,
                literal_values) -> list[Made]:
    """The ``Made`` inputs of ``makers`` (literal calls from the tests: name, args, kwargs) on both sides,
    and the project's classes the changed module names; those that build on one side only are left out."""
    spaces = [_namespaces(_globals(fn), modules, top) for fn, modules in ((old_fn, old_modules),
                                                                          (new_fn, new_modules))]
    out = _classes(_globals(old_fn), _globals(new_fn), top)
    deadline = time.monotonic() + SECONDS
    for maker in makers:
        values = literal_values([maker["args"], maker["kwargs"]])
        callees = [_resolve(maker["name"], space) for space in spaces]
        if len(values) != 2 or not all(callable(c) for c in callees):
            continue
        if time.monotonic() > deadline or len(out) >= MAX_VALUES:
            break
        text = outcomes.call_text(maker["name"], tuple(values[0]), dict(values[1]))
        try:
            made = [outcomes.outcome(lambda c=c: c, tuple(values[0]), dict(values[1]), SECONDS)
                    for c in callees]
        except outcomes.IOAttempt:  # it writes files or uses the network: not a way to build inputs
            outcomes.clear_attempt()
            continue
        if any(m["kind"] != "return" for m in made):
            continue
        for code, old_value in _parts(made[0]["value"], text, top):
            try:
                new_value = _follow(made[1]["value"], code, text)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError):
                continue
            if type(new_value).__name__ == type(old_value).__name__:
                out.append(Made(code, (old_value, new_value)))
    return out[:MAX_VALUES]


def _classes(old_globals: dict, new_globals: dict, top: str) -> list[Made]:
    """The project's classes the changed module names, directly (``Parenthesis``) or through a module of
    the project it imports (``sql.Parenthesis``), present on both sides."""
    out: list[Made] = []
    for name, value in sorted(new_globals.items()):
        if inspect.isclass(value) and _project_class(value, top) and inspect.isclass(old_globals.get(name)):
            out.append(Made(name, (old_globals[name], value)))
        elif inspect.ismodule(value) and _project_class(value, top, module=True) and inspect.ismodule(
                old_globals.get(name)):
            for inner, cls in sorted(vars(value).items()):
                old_cls = getattr(old_globals[name], inner, None)
                if (not inner.startswith("_") and inspect.isclass(cls) and inspect.isclass(old_cls)
                        and cls.__module__ == value.__name__):
                    out.append(Made(f"{name}.{inner}", (old_cls, cls)))
    return out[:MAX_CLASSES]


def _project_class(cls, top: str, module: bool = False) -> bool:
    name = (cls.__name__ if module else getattr(cls, "__module__", "")) or ""
    return name == top or name.startswith(top + ".")


def _globals(fn) -> dict:
    fn = getattr(fn, "fget", None) or getattr(fn, "func", None) or fn
    found = getattr(fn, "__globals__", None) or getattr(getattr(fn, "__func__", None), "__globals__", None)
    return dict(found or {})
