"""Call sequences on one object (``runner``, in the child process): a changed method whose defect
needs the object filled first (entries added, then the method called; a counter never reset; a cache that
returns a stale entry) shows nothing on a fresh object. The old and the new class are built with the same
constructor arguments and run through the same calls, comparing what each call returns (or raises) after
every step.

The sequences are drawn by Hypothesis as one value (constructor arguments, a few calls of the class's
public methods and properties, the changed method, a call or two after it): the existing search's time box,
per-input confirmation and hang handling apply as they are, and Hypothesis shrinks a difference to the
shortest sequence that still shows it, which is what the pasted test repeats. Its stateful testing
(``RuleBasedStateMachine``) would add rules, bundles and a runner of its own for what one drawn list does.
Standard library and Hypothesis only, nothing of acode: the runner loads this file by its path."""

from __future__ import annotations

import functools
import inspect
import sys

MAX_METHODS = 8  # the changed one first, then the class's other public methods and properties
BEFORE, AFTER = 4, 2  # calls drawn before the changed method and after it: sequences of at most 7 calls
EXAMPLES = 150
OBJECT = "obj"

# the runner's sibling modules, loaded by their paths before this one (``runner._sibling``)
outcomes = sys.modules["acode_behaviour_runner_outcomes"]
inputs = sys.modules["acode_behaviour_runner_inputs"]
made = sys.modules["acode_behaviour_runner_made"]


def members(old_cls, new_cls, changed: str) -> dict[str, inspect.Signature | None]:
    """The calls a sequence is made of: name -> signature (None: a property, read not called)."""
    out: dict[str, inspect.Signature | None] = {}
    for name in [changed, *sorted(dir(new_cls))]:
        if name in out or (name != changed and name.startswith("_")) or not hasattr(old_cls, name):
            continue
        raw = inspect.getattr_static(new_cls, name)
        if is_property(raw):
            out[name] = None
        elif inspect.isfunction(raw) and getattr(raw, "__module__", None) == new_cls.__module__:
            try:
                out[name] = inspect.signature(raw)
            except (TypeError, ValueError):
                continue
        if len(out) >= MAX_METHODS:
            break
    return out


def is_property(value) -> bool:
    """A property or a cached one (``functools.cached_property``, or a library's own that subclasses
    ``property``, as werkzeug's does): read as an attribute, never called."""
    return isinstance(value, (property, functools.cached_property))


def program_strategy(new_cls, calls: dict[str, inspect.Signature | None], changed: str, seeds: list,
                     built: list = ()):
    """Constructor arguments, then the calls: up to BEFORE drawn calls, the changed method, up to AFTER."""
    from hypothesis import strategies as st

    def arguments_of(name: str, signature):
        if signature is None:
            return st.just(None)
        method = getattr(new_cls, name)
        params = inputs.parameters(signature, "method")
        return st.fixed_dictionaries(inputs.strategies(method, params, seeds, built)).map(
            lambda values, params=params: inputs.arguments(params, values))

    by_name = {name: st.tuples(st.just(name), arguments_of(name, sig)) for name, sig in calls.items()}
    step = st.one_of(*by_name.values())
    ctor_params = inputs.parameters(inspect.signature(new_cls), "function")
    ctor = st.fixed_dictionaries(inputs.strategies(new_cls.__init__, ctor_params, seeds, built)).map(
        lambda values: inputs.arguments(ctor_params, values))
    return st.tuples(ctor, st.lists(step, max_size=BEFORE), by_name[changed], st.lists(step, max_size=AFTER)
                     ).map(lambda p: (p[0], [*p[1], p[2], *p[3]]))


def play(cls, ctor: tuple[tuple, dict], steps: list, seconds: float, side: int = 0) -> list[dict]:
    """The outcome of building the object and of each call on it, in turn (stopped at a call that does not
    finish: the object's state is unknown after it). A call that returns the object itself is ``self``:
    what it holds inside may differ between two correct versions. ``side``: whose inputs of the project's
    own types are passed (0 old, 1 new)."""
    built = outcomes.outcome(lambda: cls, *made.sides(*ctor, side), seconds)
    out = [{**built, "value": None} if built["kind"] == "return" else built]
    if built["kind"] != "return":
        return out
    obj = built["value"]
    for name, arguments in steps:
        if arguments is None:  # a property
            result = outcomes.outcome(lambda name=name: lambda: getattr(obj, name), (), {}, seconds)
        else:
            result = outcomes.outcome(lambda name=name: getattr(obj, name), *made.sides(*arguments, side),
                                      seconds)
        if result["kind"] == "return" and result["value"] is obj:
            result["value"] = _Self()
        out.append(result)
        if result["kind"] == "timeout":
            break
    return out


class _Self:
    def __repr__(self) -> str:
        return "self"

    def __eq__(self, other) -> bool:
        return isinstance(other, _Self)

    __hash__ = object.__hash__


def first_difference(old: list[dict], new: list[dict]) -> tuple[int, str]:
    """(index of the first outcome that differs, what differs), or (-1, '')."""
    for index, (before, after) in enumerate(zip(old, new, strict=False)):
        what = outcomes.differ(before, after)
        if what:
            return index, what
    if len(old) != len(new):  # one side stopped at a call that did not finish
        return min(len(old), len(new)) - 1, "result"
    return -1, ""


def sequence_text(class_name: str, ctor: tuple[tuple, dict], steps: list, upto: int) -> str:
    """``obj = Counter(); obj.add(1); obj.total``: the calls up to and including step ``upto``."""
    parts = [f"{OBJECT} = {outcomes.call_text(class_name, *ctor)}"]
    for name, arguments in steps[:upto]:
        parts.append(f"{OBJECT}.{name}" if arguments is None else outcomes.call_text(f"{OBJECT}.{name}",
                                                                                       *arguments))
    return "; ".join(parts)


def pasteable_steps(class_name: str, ctor: tuple[tuple, dict], steps: list, old: list[dict],
                    new: list[dict], upto: int) -> list[dict]:
    """The steps of ``runner_pastable.test_text`` for the sequence up to step ``upto``."""
    out = [{"assign": OBJECT, "owner": "", "name": class_name, "args": ctor[0], "kwargs": ctor[1],
            "old": old[0]}]
    for index, (name, arguments) in enumerate(steps[:upto], start=1):
        args, kwargs = arguments if arguments is not None else ((), {})
        out.append({"owner": OBJECT, "name": name, "args": args, "kwargs": kwargs,
                    "attribute": arguments is None, "old": old[index],
                    "new_kind": new[index]["kind"] if index < len(new) else "timeout"})
    return out


def search(found, old_cls, new_cls, changed: str, seeds: list, seconds: float, built: list = ()) -> bool:
    """Call sequences for the runner's ``Search`` ``found`` (its ``drawn``, ``record``, counters and hang
    rule apply as for single calls); True when one ended the search."""
    calls = members(old_cls, new_cls, changed)
    if changed not in calls:
        return False
    try:
        strategy = program_strategy(new_cls, calls, changed, seeds, built)
    except (TypeError, ValueError):  # a constructor without a signature
        return False
    name = new_cls.__name__
    return found.drawn(strategy, lambda program: compare(found, old_cls, new_cls, name, *program), seconds,
                       EXAMPLES)


def compare(found, old_cls, new_cls, name: str, ctor: tuple[tuple, dict], steps: list) -> bool:
    """One sequence on both classes; a difference must show again when both are played once more (a call
    that ran out of time gets ``HANG_PATIENCE`` times as long then: slow is not hung)."""
    key = sequence_text(name, ctor, steps, len(steps))
    if found.hang is not None:
        return key == found.hang
    limit = outcomes.CALL_SECONDS
    try:
        old = play(old_cls, ctor, steps, limit, 0)
        with found.flight(key, old[-1]):  # a call the alarm cannot stop: the parent learns the sequence
            new = play(new_cls, ctor, steps, limit, 1)
    except outcomes.IOAttempt:  # another method writes files or uses the network: not this sequence
        outcomes.clear_attempt()
        return False
    found.tried += 1
    index, what = first_difference(old, new)
    if index < 0:
        found.returned += old[-1]["kind"] == "return"
        return False
    longer = any(o["kind"] == "timeout" for o in old + new)
    limit *= outcomes.HANG_PATIENCE if longer else 1
    try:
        old_again, new_again = play(old_cls, ctor, steps, limit, 0), play(new_cls, ctor, steps, limit, 1)
    except outcomes.IOAttempt:
        outcomes.clear_attempt()
        return False
    again, what_again = first_difference(old_again, new_again)
    if again < 0 or (not longer and (again, what_again) != (index, what)):
        return False  # slow but equal, or not the same answer twice
    old, new, index, what = old_again, new_again, again, what_again
    after = new[index] if index < len(new) else {"kind": "timeout", "limit": limit}
    return found.record(sequence_text(name, ctor, steps, index), old[index], after, what, "sequence",
                        pasteable_steps(name, ctor, steps, old, new, index), key=key)
