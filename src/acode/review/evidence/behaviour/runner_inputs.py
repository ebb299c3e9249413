"""The behaviour runner's inputs (``runner``, in the child process): the literal texts of the
docstring's examples, the tests' calls and the bodies' seeds as values, one Hypothesis strategy per parameter
(``st.from_type`` of its annotation, the seeds mixed in), and a drawn set of values as a call's arguments.
Standard library and Hypothesis only, nothing of acode: the runner loads this file by its path.
"""

from __future__ import annotations

import ast
import inspect
import typing


def literal_values(texts: list[str]) -> list:
    out = []
    for text in texts:
        try:
            out.append(ast.literal_eval(text))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def parameters(signature: inspect.Signature, kind: str) -> list[inspect.Parameter]:
    params = list(signature.parameters.values())
    if kind == "method" and params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def strategies(fn, params: list[inspect.Parameter], seeds: list, made: list = ()):
    """One Hypothesis strategy per parameter: ``st.from_type`` of its annotation with the seeds of that
    type mixed in; an unannotated parameter gets the seeds and small values of the common types. ``made``:
    inputs of the project's own types (``runner_made.Made``), for an unannotated parameter and for
    one annotated with their class."""
    from hypothesis import strategies as st

    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # noqa: BLE001 - unresolvable annotations: treated as absent
        hints = {}
    texts = [s for s in seeds if isinstance(s, str)]
    scalar = st.one_of(st.text(max_size=8), st.integers(-3, 10), st.none(), st.booleans(),
                       *([st.sampled_from(seeds)] if seeds else []))
    key = st.one_of(st.sampled_from(texts), st.text(max_size=6)) if texts else st.text(max_size=6)
    # a bare container annotation (``dict``, ``list``) would give Hypothesis nothing to fill it with
    bare = {dict: st.dictionaries(key, scalar, max_size=4), list: st.lists(scalar, max_size=5),
            tuple: st.lists(scalar, max_size=4).map(tuple), set: st.sets(st.integers(-3, 10), max_size=4)}
    generic = st.one_of(scalar, bare[list], bare[dict])
    st.register_type_strategy(dict, bare[dict])  # also inside list[dict], Optional[dict], ...
    out = {}
    for param in params:
        hint = hints.get(param.name)
        base = generic
        if hint in bare:
            base = bare[hint]
        elif hint is not None:
            try:
                base = st.from_type(hint)
                base.validate()
            except Exception:  # noqa: BLE001 - a type Hypothesis cannot build: the generic values
                base = generic
        typed = [s for s in seeds if hint is None or _fits(s, hint)]
        strategy = st.one_of(st.sampled_from(typed), base) if typed else base
        built = [m for m in made if hint is None or _fits(m.values[1], hint)]
        if built:
            strategy = st.one_of(st.sampled_from(built), strategy)
        if param.default is not param.empty:
            strategy = st.one_of(st.just(_OMIT), strategy)
        out[param.name] = strategy
    return out


_OMIT = object()


def _fits(value, hint) -> bool:
    origin = typing.get_origin(hint) or hint
    try:
        if origin is typing.Union:
            return any(_fits(value, h) for h in typing.get_args(hint))
        return isinstance(value, origin) and not (origin is int and isinstance(value, bool))
    except TypeError:
        return False


def arguments(params: list[inspect.Parameter], values: dict) -> tuple[tuple, dict]:
    args, kwargs = [], {}
    for param in params:
        value = values.get(param.name, _OMIT)
        if value is _OMIT:
            continue
        if param.kind == param.KEYWORD_ONLY or (kwargs and param.kind == param.POSITIONAL_OR_KEYWORD):
            kwargs[param.name] = value
        else:
            args.append(value)
    return tuple(args), kwargs
