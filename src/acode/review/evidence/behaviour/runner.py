"""The child process of the behavioural diff: call the old and the new version of one function on the same
inputs and say where they differ (``acode.review.evidence.behaviour.diff`` starts it, inside the sandbox).

Run as a script (``python behaviour_runner.py SPEC OUT``, its copy in the child's folder made by
``child.copy_runner``; all the functions of a review in turn, within one time plan), never imported by acode's
own process: it imports the code under review. It imports nothing of acode either, so a review of acode
itself loads the reviewed ``acode`` package, not the reviewer's. Standard library, Hypothesis and (for
``crosshair``) CrossHair only, and the ``runner_*.py`` files next to it, loaded by their paths: ``_loading``
(one tree's version of the function), ``_inputs`` (the values to call with), ``_outcomes`` (one guarded
call and its outcome, compared and described), ``_made`` (values of the project's own types), ``_sequences``
(calls on one object), ``_doctests`` and ``_pastable`` (the test a user can paste).

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

import importlib
import importlib.util
import inspect
import json
import sys
import time
from pathlib import Path
from types import ModuleType


def _sibling(name: str) -> ModuleType:
    """The module ``name``.py next to this file, loaded by its path rather than imported: the folder is not on
    ``sys.path`` when CrossHair's shim (``child``) loads this file, and importing it through the
    package would load the reviewer's acode. The child's copies carry a prefix (``child.CHILD_PREFIX``):
    the siblings' names carry this file's."""
    prefix = Path(__file__).stem.removesuffix("runner")
    spec = importlib.util.spec_from_file_location(f"acode_behaviour_{name}",
                                                  Path(__file__).with_name(f"{prefix}{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


loading = _sibling("runner_loading")
inputs = _sibling("runner_inputs")
outcomes = _sibling("runner_outcomes")
pastable = _sibling("runner_pastable")
made = _sibling("runner_made")  # after outcomes, which it uses
sequences = _sibling("runner_sequences")  # after the three it uses
doctests = _sibling("runner_doctests")
OBJECT = sequences.OBJECT
MODULES, NeedsArguments, load = loading.MODULES, loading.NeedsArguments, loading.load

_CONTRACT_ERRORS = {"TypeError", "AttributeError"}
PATIENCE = 60  # inputs of the second search, for a difference where both versions return
MIN_SEARCH_SECONDS = 0.5  # a function's search, however little of the time plan is left
IN_FLIGHT = "in-flight.json"  # beside the results: the input the new version is running on (``in_flight``)


def _confirmed(old, new, old_in: tuple[tuple, dict], new_in: tuple[tuple, dict], before: dict, after: dict
               ) -> tuple[dict, dict, str] | None:
    """The same input again, as a difference must be seen twice: None when a version does not answer the
    same way twice (time, randomness). A version that ran out of its time gets ``HANG_PATIENCE`` times as
    long the second time: when it then finishes it was slow, not hung, and the two second runs are compared
    (``what`` '' when they agree)."""
    def again(side, given: tuple[tuple, dict], first: dict) -> dict:
        longer = first["kind"] == "timeout"
        return outcomes.outcome(side, *given, outcomes.CALL_SECONDS * (outcomes.HANG_PATIENCE if longer
                                                                       else 1))
    old_again, new_again = again(old, old_in, before), again(new, new_in, after)
    slow = [first["kind"] == "timeout" != second["kind"] for first, second in
            ((before, old_again), (after, new_again))]
    if any(slow):
        return old_again, new_again, outcomes.differ(old_again, new_again)
    if outcomes.differ(before, old_again) or outcomes.differ(after, new_again):
        return None
    return old_again, new_again, outcomes.differ(before, after)


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


# ---------------------------------------------------------------------------------------------- search

class Search:
    def __init__(self, spec: dict, old, new, params, name: str, owner: str = "") -> None:
        self.spec, self.old, self.new, self.params, self.name = spec, old, new, params, name
        self.owner = owner  # '' a function, OBJECT a method on a fresh object, else the class (static)
        self.tried = 0
        self.returned = 0  # inputs on which both versions returned the same: what "same" rests on
        self.found: dict | None = None
        self.fallback: dict | None = None
        self.fallback_rank = self.found_rank = 3
        self.accept = 1  # the worst rank (``_rank``) that ends the search
        self.hang: str | None = None  # the input on which one version never returned, once found
        self.failure = ""  # why a search for inputs stopped early (Hypothesis could not draw them)

    def compare(self, args: tuple, kwargs: dict, source: str) -> bool:
        """True when old and new differ on this input (recorded in ``found``, if not already)."""
        text = outcomes.call_text(self.name, args, kwargs)
        if self.hang is not None:  # found: no other input is run (each would cost its time box again)
            return text == self.hang
        self.tried += 1
        old_in, new_in = made.sides(args, kwargs, 0), made.sides(args, kwargs, 1)
        before = outcomes.outcome(self.old, *old_in)
        with outcomes.in_flight(text, before, self.spec):
            after = outcomes.outcome(self.new, *new_in)
            what = outcomes.differ(before, after)
            confirmed = _confirmed(self.old, self.new, old_in, new_in, before, after) if what else None
        if not what:
            self.returned += before["kind"] == "return"
            return False
        if confirmed is None:
            return False
        before, after, what = confirmed
        if not what:
            self.returned += before["kind"] == "return"
            return False
        steps = [{"owner": self.owner, "name": self.name.rpartition(".")[2] if self.owner else self.name,
                  "args": args, "kwargs": kwargs, "old": before, "new_kind": after["kind"]}]
        if self.owner == OBJECT:  # a method on a fresh object: the pasted test builds it first
            steps.insert(0, {"assign": OBJECT, "owner": "", "name": self.name.split(".")[0], "args": (),
                             "kwargs": {}, "old": {"kind": "return"}})
        return self.record(text, before, after, what, source, steps)

    def flight(self, text: str, before: dict):
        """``in_flight`` for this function: while the new version runs on what the old returned on."""
        return outcomes.in_flight(text, before, self.spec)

    def record(self, text: str, before: dict, after: dict, what: str, source: str, steps: list[dict],
               key: str = "") -> bool:
        """A confirmed difference on ``text`` (a call or a call sequence): kept as found (True: the search
        ends) when telling enough (``accept``), else as the fallback if it beats the one kept. ``key``: the
        drawn input a hang is matched by afterwards (default ``text``)."""
        old_text, new_text = outcomes.after_text(before, what), outcomes.after_text(after, what)
        if old_text == new_text and what == "result":  # objects that differ only inside: what they hold
            old_text, new_text = outcomes.where_they_differ(outcomes.state(before["value"]),
                                                            outcomes.state(after["value"]))
        kind = outcomes.kind_of(before, after, what)
        if kind == "hang":
            side = before if before["kind"] == "return" else after
            which = "the old version" if side is before else "the new version"
            took = "under 0.01" if side["seconds"] < 0.01 else f"{side['seconds']:.2f}"
            returned = f"{which} returned in {took} s"
            old_text, new_text = ((old_text, f"{new_text} ({returned})") if side is before
                                  else (f"{old_text} ({returned})", new_text))
        found = {"input": text, "old": old_text, "new": new_text, "found_by": source, "what": what,
                 "kind": kind, "steps": steps}  # the test to paste is written for the one reported
        rank = _rank(what, before, after)
        if rank <= self.accept:
            self.found, self.found_rank = found, rank
            if kind == "hang":
                self.hang = key or text
            return True
        if rank < self.fallback_rank:  # kept in case nothing better turns up
            self.fallback, self.fallback_rank = found, rank
        return False

    def explicit(self) -> bool:
        """The docstring's examples, the tests' literal calls and the body's literals, one by one."""
        for example in self.spec.get("examples", []):
            values = inputs.literal_values([example["args"], example["kwargs"]])
            if len(values) == 2 and self.compare(tuple(values[0]), dict(values[1]), "docstring"):
                return True
        for call in self.spec.get("calls", []):
            values = inputs.literal_values([call["args"], call["kwargs"]])
            if len(values) == 2 and self.compare(tuple(values[0]), dict(values[1]), "tests"):
                return True
        return False

    def hypothesis(self, strategies_by_name: dict, seconds: float, examples: int) -> bool:
        from hypothesis import strategies as st

        def check(values) -> bool:
            return self.compare(*inputs.arguments(self.params, values), "hypothesis")
        return self.drawn(st.fixed_dictionaries(strategies_by_name), check, seconds, examples)

    def drawn(self, strategy, check, seconds: float, examples: int) -> bool:
        """Hypothesis draws from ``strategy`` for ``check`` (True: a difference that ends the search, which
        it then shrinks) for ``seconds`` from its first input on, at most ``examples`` inputs."""
        from hypothesis import HealthCheck, Phase, given, settings

        class Differs(Exception):
            pass

        deadline: list[float] = []  # from the first input on: Hypothesis' own start-up is not the search

        @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
                  suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink],
                  report_multiple_bugs=False)
        @given(strategy)
        def search(value):
            deadline.append(deadline[0] if deadline else time.monotonic() + seconds)
            if self.found is None and time.monotonic() > deadline[0]:
                return
            if check(value):
                raise Differs()

        try:
            search()
        except Differs:
            return True
        except outcomes.IOAttempt:
            raise
        except Exception as exc:  # noqa: BLE001 - the inputs could not be drawn: this search ends, not the runner
            self.failure = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0][:120]}"
        return self.found is not None

    def better(self, strategies_by_name: dict, seconds: float) -> None:
        """After a difference where one version raises: a short second search for one where both return
        (the telling case for a person or the model: "returned 0.0, now 1.5" rather than a crash). Not after
        a hang: it is the plainest difference there is, and every input that hangs again costs its box."""
        if self.found_rank != 1 or self.hang is not None:
            return
        kept, self.found, self.accept = self.found, None, 0
        self.hypothesis(strategies_by_name, seconds, PATIENCE)
        self.found = self.found or kept


def run(spec: dict) -> dict:
    sys.setrecursionlimit(3000)
    # the project's own environment: what acode's lacks (``child.project_site_packages``)
    sys.path.extend(p for p in spec.get("site_packages", []) if p not in sys.path)
    try:
        old, old_fn, old_cls = load(spec["old_root"], spec["module"], spec["qualname"], spec["kind"])
    except Exception as exc:  # noqa: BLE001 - anything the import raises is why it could not run
        return {"status": "not_run", "why": f"on the base: {_error(exc, spec['kind'])}"}
    try:
        with outcomes.importing_new(spec):
            new, new_fn, new_cls = load(spec["new_root"], spec["module"], spec["qualname"], spec["kind"])
    except Exception as exc:  # noqa: BLE001
        return {"status": "not_run", "why": f"with the change: {_error(exc, spec['kind'])}"}
    if inspect.iscoroutinefunction(new_fn) or inspect.iscoroutinefunction(old_fn):
        return {"status": "not_run", "why": "a coroutine function (async def) is not run"}
    attribute = sequences.is_property(new_fn) and sequences.is_property(old_fn)
    try:  # a property is read, not called: only call sequences on an object reach it
        params = [] if attribute else inputs.parameters(inspect.signature(new_fn), spec["kind"])
    except (TypeError, ValueError) as exc:
        return {"status": "not_run", "why": f"no signature ({exc})"}
    seeds = inputs.literal_values(spec.get("seeds", []))
    bare = not attribute and not isinstance(old, NeedsArguments) and not isinstance(new, NeedsArguments)
    owner = ("" if spec["kind"] != "method" else OBJECT if new_cls is not None
             else spec["qualname"].split(".")[0])
    search = Search(spec, old, new, params, spec["name"], owner)
    started, seconds = time.monotonic(), spec["seconds"]
    stateful = old_cls is not None and new_cls is not None
    checks: list[dict] = []
    try:
        checks += doctests.doctest_checks(spec, old_fn, new_fn)
        if bare:
            checks = doctests.docstring_checks(spec, old, new) + checks
        # the docstring's and the tests' inputs are the telling ones; a generated one may be bettered
        explicit = bare and search.explicit()
        built: list = []
        for phase in ("drawn", "built"):
            # values of the project's own types only where no drawn input was accepted (they cost building)
            if phase == "built":
                if (explicit or search.found is not None or search.returned
                        or seconds - (time.monotonic() - started) < MIN_SEARCH_SECONDS):
                    break
                built = _built(spec, old_fn, new_fn)
                if not built:
                    break
            left = max(MIN_SEARCH_SECONDS, seconds - (time.monotonic() - started))
            if bare and not explicit:
                by_name = inputs.strategies(new_fn, params, seeds, built)
                single = left / 2 if stateful else left  # the rest for call sequences on one object
                if search.hypothesis(by_name, single, spec.get("max_examples", 200)):
                    search.better(by_name, single / 3)
            if stateful and search.found is None:
                left = max(MIN_SEARCH_SECONDS, seconds - (time.monotonic() - started))
                changed = spec["qualname"].split(".")[-1]
                sequences.search(search, old_cls, new_cls, changed, seeds, left, built)
    except outcomes.IOAttempt as exc:
        return {"status": "not_run", "why": f"it {exc} (the sandbox forbids it; not compared)",
                "tried": search.tried}
    difference = search.found or doctests.difference(spec, checks) or search.fallback
    if difference is not None and "steps" in difference:  # replayed and written once, for the one reported
        steps = difference.pop("steps")
        difference["test"] = _pasteable(spec, steps, difference["what"], difference["kind"])
    if difference is None and not search.tried:
        why = (f"its class cannot be built without arguments ({old if not bare else new})"
               if not bare and not stateful else f"no input could be drawn ({search.failure})"
               if search.failure else "no input was tried within its time box")
        return {"status": "not_run", "why": why, "tried": 0}
    if difference is None and not search.returned:
        # raising alike on every input is no evidence of the same behaviour: no input it accepts was found
        return {"status": "not_run", "tried": search.tried, "why": (
            f"every input tried ({search.tried}) raised on both sides: none it accepts was found")}
    return {"status": "differs" if difference else "same", "tried": search.tried, "difference": difference,
            "docstring": doctests.public(checks)}


def _built(spec: dict, old_fn, new_fn) -> list:
    """Inputs of the project's own types, built on each side by the calls its tests make
    (``runner_made``); none when building them fails."""
    try:
        return made.made_values(spec.get("makers", []), old_fn, new_fn, MODULES.get(spec["old_root"], {}),
                                MODULES.get(spec["new_root"], {}), spec["module"].split(".")[0],
                                inputs.literal_values)
    except outcomes.IOAttempt:
        outcomes.clear_attempt()
        return []
    except Exception:  # noqa: BLE001 - the project's code raised while being looked into: the usual inputs
        return []


def _pasteable(spec: dict, steps: list[dict], what: str, kind: str) -> str:
    """The pytest test that repeats ``steps`` and asserts the old outcome, or why there is none. Checked
    first on freshly imported modules, as a user's test process would have them: an outcome that rests on
    what earlier calls left in the module (a module-level cache) is no test a fresh process repeats."""
    if any(made.built_by_project(step["args"], step["kwargs"]) for step in steps):
        return ("# no test: an input is built by the project's own code (as the call shows); a test "
                "builds it the same way")
    try:
        old = _replay(spec, steps, spec["old_root"])
        new = old if kind == "hang" else _replay(spec, steps, spec["new_root"])  # a hang costs its box again
    except Exception as exc:  # noqa: BLE001 - whatever stops the replay stops the test
        return f"# no test: the call could not be repeated in fresh modules ({type(exc).__name__})"
    if outcomes.differ(old, steps[-1]["old"]) or (kind != "hang" and not outcomes.differ(old, new)):
        return (f"# no test: in a fresh process the old version {outcomes.describe(old)} and the new one "
                f"{outcomes.describe(new)}: the difference rests on what earlier calls left in the module")
    imported = steps[0]["owner"] or steps[0]["name"]  # the function, the class built, or a static's class
    try:
        return pastable.test_text(spec["module"], imported, steps, what, pastable.test_name(spec["qualname"]))
    except pastable.NoTest as exc:
        return f"# no test: {exc}"


def _replay(spec: dict, steps: list[dict], root: str) -> dict:
    """The last step's outcome, the module of ``root`` imported afresh."""
    factory, _, cls = load(root, spec["module"], spec["qualname"], spec["kind"])
    if not steps[0].get("assign"):
        return outcomes.outcome(factory, steps[-1]["args"], steps[-1]["kwargs"])
    calls = [(s["name"], None if s.get("attribute") else (s["args"], s["kwargs"])) for s in steps[1:]]
    played = sequences.play(cls, (steps[0]["args"], steps[0]["kwargs"]), calls, outcomes.CALL_SECONDS)
    return played[-1] if len(played) == len(steps) else {"kind": "timeout", "args": ((), {})}


def _error(exc: BaseException, kind: str) -> str:
    line = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"the module does not import ({type(exc).__name__}: {line})"


def main(argv: list[str]) -> int:
    """``SPEC OUT``: SPEC holds the functions to compare and the time plan for all of them together; OUT gets
    the list of results, written again after each function (so what was finished survives a crash or a
    kill in a later one)."""
    batch = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    outcomes.InFlight.path = Path(argv[2]).with_name(IN_FLIGHT)
    outcomes.guard_calls()
    specs = batch["functions"]
    deadline = time.monotonic() + batch.get("plan_seconds", float("inf"))
    results: list[dict] = []
    for index, spec in enumerate(specs):
        started = time.monotonic()
        # the plan's time left, shared by the functions left: the first one cannot take all of it
        share = (deadline - started) / (len(specs) - index)
        spec = {**spec, "index": index,
                "seconds": max(MIN_SEARCH_SECONDS, min(spec.get("seconds", 6.0), share))}
        outcomes.clear_attempt()
        result = run(spec)
        results.append({**result, "seconds": round(time.monotonic() - started, 2)})
        Path(argv[2]).write_text(json.dumps(results), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
