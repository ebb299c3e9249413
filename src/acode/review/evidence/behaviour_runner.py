"""The child process of the behavioural diff: call the old and the new version of one function on the same
inputs and say where they differ (``acode.review.evidence.behaviour_diff`` starts it, inside the sandbox).

Run as a script (``python behaviour_runner.py SPEC OUT``, all the functions of a review in turn, within one
time plan), never imported by acode's own process: it imports
the code under review. It imports nothing of acode either, so a review of acode itself loads the reviewed
``acode`` package, not the reviewer's. Standard library, Hypothesis and (for ``crosshair``) CrossHair only.

One process, both versions: the base tree's module is imported and the function kept, the tree's modules
are dropped from ``sys.modules``, then the new tree's module is imported. The old function keeps its own
module globals, so each version runs with the code around it from its own side.

Inputs, in order: the docstring's examples, literal calls from the project's tests, the literals of both
versions' bodies, then Hypothesis (``st.from_type`` of each annotation, the literals mixed in). Each call
runs on deep copies of its arguments with a per-call alarm; an outcome is the value returned (or the
exception type raised) and the arguments as the call left them. While the code under review runs, an audit
hook refuses file writes, network and processes: such a function is listed as not run, not compared.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import importlib
import inspect
import io
import itertools
import json
import re
import signal
import sys
import time
import typing
from pathlib import Path

CALL_SECONDS = 2.0
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_WRITE_MODES = set("wax+")
_NETWORK = {"socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo", "socket.__new__"}
_PROCESS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
            "os.forkpty", "pty.spawn"}
_FILES = {"os.remove", "os.unlink", "os.rename", "os.replace", "os.rmdir", "os.mkdir", "shutil.rmtree",
          "shutil.move", "shutil.copyfile", "os.truncate", "os.chmod", "os.symlink", "os.link"}


_CONTRACT_ERRORS = {"TypeError", "AttributeError"}
PATIENCE = 60  # inputs of the second search, for a difference where both versions return
MIN_SEARCH_SECONDS = 0.5  # a function's search, however little of the time plan is left


def _rank(what: str, before: dict, after: dict) -> int:
    """How telling a difference is: 0 both versions return (or only the arguments differ), 1 one returns and
    the other raises or hangs, 2 both raise, or one raises TypeError/AttributeError (often an input outside
    the function's contract: None where a str goes)."""
    if what == "arguments" or before["kind"] == after["kind"] == "return":
        return 0
    if "return" in (before["kind"], after["kind"]) and not (
            {before.get("type"), after.get("type")} & _CONTRACT_ERRORS):
        return 1
    return 2


class IOAttempt(Exception):
    """The code under review tried what the behavioural diff does not run: file writes, network, processes."""


class CallTimeout(BaseException):  # not an Exception: the code under review cannot catch it by accident
    pass


class _Guard:
    active = False
    attempted = ""


def _audit(event: str, args: tuple) -> None:
    if not _Guard.active:
        return
    what = ""
    if event == "open" and len(args) > 1 and isinstance(args[1], str) and _WRITE_MODES & set(args[1]):
        what = f"opens {args[0]!r} for writing"
    elif event in _NETWORK:
        what = "uses the network"
    elif event in _PROCESS or event.startswith(("os.exec", "os.spawn")):
        what = "starts a process"
    elif event in _FILES:
        what = f"changes files ({event})"
    if what:
        _Guard.active = False  # the exception below must not trip the hook again
        _Guard.attempted = what
        raise IOAttempt(what)


def _on_alarm(signum, frame):
    raise CallTimeout()


# ---------------------------------------------------------------------------------------------- loading

def load(root: str, module: str, qualname: str, kind: str):
    """The function (or a factory of the bound method) ``qualname`` of ``module`` as it is in ``root``;
    the root's modules are dropped from ``sys.modules`` afterwards so the other side imports its own."""
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
                return lambda: bound, bound
            cls()  # may raise: a class that cannot be built without arguments
            return (lambda: getattr(cls(), name)), getattr(cls, name)
        fn = getattr(mod, qualname)
        return (lambda: fn), fn
    finally:
        del sys.path[:len(roots)]
        top = module.split(".")[0]
        for key in set(sys.modules) - before:
            found = sys.modules.get(key)
            file = str(getattr(found, "__file__", "") or "")
            if key == top or key.startswith(top + ".") or file.startswith(root):
                del sys.modules[key]


# ---------------------------------------------------------------------------------------------- calling

def outcome(factory, args: tuple, kwargs: dict) -> dict:
    """What one call does: returned value or raised type, and its arguments after the call."""
    args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    sink = io.StringIO()
    signal.setitimer(signal.ITIMER_REAL, CALL_SECONDS)
    _Guard.active = True
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            value = factory()(*args, **kwargs)
            if inspect.isgenerator(value) or isinstance(value, (map, filter, zip, range, itertools.chain)):
                value = list(itertools.islice(value, 1000))
        result = {"kind": "return", "value": value}
    except IOAttempt:
        raise
    except CallTimeout:
        result = {"kind": "timeout"}
    except RecursionError:
        result = {"kind": "raise", "type": "RecursionError"}
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        result = {"kind": "raise", "type": type(exc).__name__}
    finally:
        _Guard.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
    if _Guard.attempted:
        raise IOAttempt(_Guard.attempted)
    result["args"] = (args, kwargs)
    return result


def _same(a, b) -> bool:
    try:
        equal = bool(a == b)
    except Exception:  # noqa: BLE001 - a comparison that fails is decided by the text
        equal = False
    return equal or (_show(a) == _show(b) and _state(a) == _state(b))


def _state(value, depth: int = 0) -> str:
    """What a value holds as text, looking inside objects whose own text says nothing (``<pkg.Column
    object>``, equal by their text whatever they hold): ``Column(name='a', wrap=True)``."""
    if depth > 4:
        return _show(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_state(v, depth + 1) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_show(k)}: {_state(v, depth + 1)}" for k, v in value.items()) + "}"
    if type(value).__repr__ is object.__repr__:
        try:
            attributes = dict(vars(value))
        except TypeError:  # __slots__: the slots' values
            attributes = {n: getattr(value, n, None) for c in type(value).__mro__
                          for n in getattr(c, "__slots__", ())}
        inner = ", ".join(f"{k}={_state(v, depth + 1)}" for k, v in attributes.items())
        return f"{type(value).__qualname__}({inner})"
    return _show(value)


def _where_they_differ(old: str, new: str, before: int = 60) -> tuple[str, str]:
    """``returns <old>`` and ``returns <new>``, each cut to the stretch where the two texts first differ."""
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    start = max(0, at - before)
    return tuple(_cut(f"returns {'…' if start else ''}{text[start:]}") for text in (old, new))  # type: ignore[return-value]


def _show(value) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"
    return _cut(_ADDRESS.sub("", text))


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(result: dict) -> str:
    if result["kind"] == "return":
        return f"returns {_show(result['value'])}"
    if result["kind"] == "timeout":
        return f"does not finish in {CALL_SECONDS:g} s"
    return f"raises {result['type']}"


def differ(old: dict, new: dict) -> str:
    """'' when the outcomes agree, else what differs ('result' or 'arguments')."""
    if old["kind"] != new["kind"]:
        return "result"
    if old["kind"] == "return" and not _same(old["value"], new["value"]):
        return "result"
    if old["kind"] == "raise" and old["type"] != new["type"]:
        return "result"
    if not _same(old["args"], new["args"]):
        return "arguments"
    return ""


def call_text(name: str, args: tuple, kwargs: dict) -> str:
    parts = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def after_text(result: dict, what: str) -> str:
    text = describe(result)
    if what == "arguments":
        args, kwargs = result["args"]
        text += f", leaving the arguments as {call_text('', args, kwargs)[1:-1] or '()'}"
    return text


# ---------------------------------------------------------------------------------------------- inputs

def _literal_values(texts: list[str]) -> list:
    out = []
    for text in texts:
        try:
            out.append(ast.literal_eval(text))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def _parameters(signature: inspect.Signature, kind: str) -> list[inspect.Parameter]:
    params = list(signature.parameters.values())
    if kind == "method" and params and params[0].name in ("self", "cls"):
        params = params[1:]
    return [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def strategies(fn, params: list[inspect.Parameter], seeds: list):
    """One Hypothesis strategy per parameter: ``st.from_type`` of its annotation with the seeds of that
    type mixed in; an unannotated parameter gets the seeds and small values of the common types."""
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


# ---------------------------------------------------------------------------------------------- search

class Search:
    def __init__(self, spec: dict, old, new, params, name: str) -> None:
        self.spec, self.old, self.new, self.params, self.name = spec, old, new, params, name
        self.tried = 0
        self.returned = 0  # inputs on which both versions returned the same: what "same" rests on
        self.found: dict | None = None
        self.fallback: dict | None = None
        self.fallback_rank = self.found_rank = 3
        self.accept = 1  # the worst rank (``_rank``) that ends the search

    def compare(self, args: tuple, kwargs: dict, source: str) -> bool:
        """True when old and new differ on this input (recorded in ``found``, if not already)."""
        self.tried += 1
        before, after = outcome(self.old, args, kwargs), outcome(self.new, args, kwargs)
        what = differ(before, after)
        if not what:
            self.returned += before["kind"] == "return"
            return False
        # the same input again: a function that does not answer the same way twice is not compared on it
        if differ(before, outcome(self.old, args, kwargs)) or differ(after, outcome(self.new, args, kwargs)):
            return False
        old_text, new_text = after_text(before, what), after_text(after, what)
        if old_text == new_text and what == "result":  # objects that differ only inside: what they hold
            old_text, new_text = _where_they_differ(_state(before["value"]), _state(after["value"]))
        found = {"input": call_text(self.name, args, kwargs), "old": old_text, "new": new_text,
                 "found_by": source, "what": what}
        rank = _rank(what, before, after)
        if rank <= self.accept:
            self.found, self.found_rank = found, rank
            return True
        if rank < self.fallback_rank:  # kept in case nothing better turns up
            self.fallback, self.fallback_rank = found, rank
        return False

    def explicit(self) -> bool:
        """The docstring's examples, the tests' literal calls and the body's literals, one by one."""
        for example in self.spec.get("examples", []):
            values = _literal_values([example["args"], example["kwargs"]])
            if len(values) == 2 and self.compare(tuple(values[0]), dict(values[1]), "docstring"):
                return True
        for call in self.spec.get("calls", []):
            values = _literal_values([call["args"], call["kwargs"]])
            if len(values) == 2 and self.compare(tuple(values[0]), dict(values[1]), "tests"):
                return True
        return False

    def hypothesis(self, strategies_by_name: dict, seconds: float, examples: int) -> bool:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis import strategies as st

        class Differs(Exception):
            pass

        deadline: list[float] = []  # from the first input on: Hypothesis' own start-up is not the search

        @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                  report_multiple_bugs=False)
        @given(st.fixed_dictionaries(strategies_by_name))
        def search(values):
            deadline.append(deadline[0] if deadline else time.monotonic() + seconds)
            if self.found is None and time.monotonic() > deadline[0]:
                return
            args, kwargs = arguments(self.params, values)
            if self.compare(args, kwargs, "hypothesis"):
                raise Differs()

        try:
            search()
        except Differs:
            return True
        return self.found is not None

    def better(self, strategies_by_name: dict, seconds: float) -> None:
        """After a difference where one version raises: a short second search for one where both return
        (the telling case for a person or the model: "returned 0.0, now 1.5" rather than a crash)."""
        if self.found_rank != 1:
            return
        kept, self.found, self.accept = self.found, None, 0
        self.hypothesis(strategies_by_name, seconds, PATIENCE)
        self.found = self.found or kept


def docstring_checks(spec: dict, old, new) -> list[dict]:
    """Each docstring example with its expected output: does the old / the new version give it?"""
    out = []
    for example in spec.get("examples", []):
        if not example.get("want"):
            continue
        values = _literal_values([example["args"], example["kwargs"], example["want"]])
        if len(values) != 3:
            continue
        args, kwargs, want = tuple(values[0]), dict(values[1]), values[2]
        results = [outcome(side, args, kwargs) for side in (old, new)]
        out.append({"call": call_text(spec["name"], args, kwargs), "want": _show(want),
                    "old_ok": results[0]["kind"] == "return" and _same(results[0]["value"], want),
                    "new_ok": results[1]["kind"] == "return" and _same(results[1]["value"], want),
                    "old": describe(results[0]), "new": describe(results[1])})
    return out


def run(spec: dict) -> dict:
    sys.setrecursionlimit(3000)
    try:
        old, old_fn = load(spec["old_root"], spec["module"], spec["qualname"], spec["kind"])
    except Exception as exc:  # noqa: BLE001 - anything the import raises is why it could not run
        return {"status": "not_run", "why": f"on the base: {_error(exc, spec['kind'])}"}
    try:
        new, new_fn = load(spec["new_root"], spec["module"], spec["qualname"], spec["kind"])
    except Exception as exc:  # noqa: BLE001
        return {"status": "not_run", "why": f"with the change: {_error(exc, spec['kind'])}"}
    if inspect.iscoroutinefunction(new_fn) or inspect.iscoroutinefunction(old_fn):
        return {"status": "not_run", "why": "a coroutine function (async def) is not run"}
    try:
        params = _parameters(inspect.signature(new_fn), spec["kind"])
    except (TypeError, ValueError) as exc:
        return {"status": "not_run", "why": f"no signature ({exc})"}
    seeds = _literal_values(spec.get("seeds", []))
    search = Search(spec, old, new, params, spec["name"])
    try:
        checks = docstring_checks(spec, old, new)
        by_name = strategies(new_fn, params, seeds)
        # the docstring's and the tests' inputs are the telling ones; a generated one may be bettered
        examples = spec.get("max_examples", 200)
        if not search.explicit() and search.hypothesis(by_name, spec["seconds"], examples):
            search.better(by_name, spec["seconds"] / 3)
    except IOAttempt as exc:
        return {"status": "not_run", "why": f"it {exc} (the sandbox forbids it; not compared)",
                "tried": search.tried}
    difference = search.found or search.fallback
    if difference is None and not search.tried:
        return {"status": "not_run", "why": "no input was tried within its time box", "tried": 0}
    if difference is None and not search.returned:
        # raising alike on every input is no evidence of the same behaviour: no input it accepts was found
        return {"status": "not_run", "tried": search.tried, "why": (
            f"every input tried ({search.tried}) raised on both sides: none it accepts was found")}
    return {"status": "differs" if difference else "same", "tried": search.tried, "difference": difference,
            "docstring": checks}


def _error(exc: BaseException, kind: str) -> str:
    line = (str(exc).strip().splitlines() or [""])[0][:200]
    if kind == "method" and isinstance(exc, TypeError):
        return f"its class cannot be built without arguments ({line})"
    return f"the module does not import ({type(exc).__name__}: {line})"


def main(argv: list[str]) -> int:
    """``SPEC OUT``: SPEC holds the functions to compare and the time plan for all of them together; OUT gets
    the list of results, written again after each function (so what was finished survives a crash or a
    kill in a later one)."""
    batch = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.addaudithook(_audit)
    specs = batch["functions"]
    deadline = time.monotonic() + batch.get("plan_seconds", float("inf"))
    results: list[dict] = []
    for index, spec in enumerate(specs):
        started = time.monotonic()
        # the plan's time left, shared by the functions left: the first one cannot take all of it
        share = (deadline - started) / (len(specs) - index)
        spec = {**spec, "seconds": max(MIN_SEARCH_SECONDS, min(spec.get("seconds", 6.0), share))}
        _Guard.attempted = ""
        result = run(spec)
        results.append({**result, "seconds": round(time.monotonic() - started, 2)})
        Path(argv[2]).write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
