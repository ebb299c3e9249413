"""The behavioural diff: run the old and the new version of each function a change alters on the same inputs,
in the review's sandbox, and say where they differ.

Both versions of the repository are extracted (``git archive``) into a temporary folder; one child process
(``runner.py``, a script that imports nothing of acode) loads each function from each tree in turn
and compares the outcomes on the docstring's examples, the tests' literal calls, the body's literals and
Hypothesis' inputs; for a function where that finds nothing and every parameter is annotated, CrossHair's
``diffbehavior`` searches symbolically in a process of its own, while the time plan lasts. All run in
bubblewrap (``child``: no network, the file system read-only but for one scratch folder,
credentials hidden), within one time plan for the whole diff (``Limits.plan_seconds``). What could not be
run (the module does not import on one side, the function writes files or uses the network, a class that
cannot be built without arguments, the time ran out) is listed with the reason, never guessed."""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.evidence.behaviour.child import (
    CROSSHAIR_START,
    STARTUP_SECONDS,
    Where,
    copy_runner,
    crosshair,
    project_site_packages,
    run_batch,
    seed_hypothesis_tables,
)
from acode.review.evidence.behaviour.inputs import (
    ChangedFunction,
    changed_functions,
    defined_names,
    test_calls,
    test_makers,
)
from acode.review.evidence.behaviour.withheld import withheld_by_change
from acode.review.evidence.test_runs import base_tree_of, head_tree_of
from acode.review.models import ReviewContext
from acode.sandbox import Sandbox
from acode.test_files import is_test_path


@dataclass
class FunctionResult:
    function: ChangedFunction
    status: str  # differs | same | not_run
    why: str = ""  # for not_run
    tried: int = 0
    difference: dict | None = None  # {"input", "old", "new", "found_by", "what"}
    docstring: list[dict] = field(default_factory=list)  # examples with expected output, per side
    seconds: float = 0.0
    crosshair: str = ""  # what CrossHair's search did ('' when it was not needed)
    withheld: bool = False  # not run because of the change: it imports on the base, not with the change

    def record(self) -> dict:
        return {"file": self.function.path, "function": self.function.qualname, "line": self.function.line,
                "status": self.status, "why": self.why, "tried": self.tried, "difference": self.difference,
                "docstring": self.docstring, "seconds": round(self.seconds, 1), "crosshair": self.crosshair,
                "withheld": self.withheld}


@dataclass
class BehaviourDiff:
    results: list[FunctionResult] = field(default_factory=list)
    note: str = ""  # why nothing ran (no sandbox, no base), or what was left out

    def record(self) -> dict:
        return {"functions": [r.record() for r in self.results], "note": self.note}


@dataclass
class Limits:
    seconds: float = 6.0  # Hypothesis' search per function, at most
    crosshair_seconds: float = 4.0  # CrossHair's CPU seconds per function, at most (0: not used)
    max_functions: int = 8
    max_examples: int = 200
    plan_seconds: float = 10.0  # the whole diff: every function's search and CrossHair together


def functions_of_change(context: ReviewContext) -> list[ChangedFunction]:
    out = []
    for changed in context.files:
        if (not changed.path.endswith(".py") or changed.change_type not in ("modified", "renamed")
                or is_test_path(changed.path)):
            continue
        old, new = read_old_text(context, changed), read_new_text(context, changed.path)
        if old is not None and new is not None:
            out += changed_functions(changed.path, old, new)
    return out


def run_behaviour_diff(context: ReviewContext, sandbox: Sandbox | None, limits: Limits,
                       progress=lambda _: None) -> BehaviourDiff:
    """Each changed function's old and new version compared (``sandbox`` None: as the user, only when the
    caller was asked to run the change's code without one), all within ``limits.plan_seconds``."""
    functions = functions_of_change(context)
    if not functions:
        return BehaviourDiff()
    with tempfile.TemporaryDirectory(prefix="acode-review-behaviour-") as tmp:
        root = Path(tmp)
        base, why_not = base_tree_of(context, root / "base")
        if base is None:
            return BehaviourDiff(note=f"not run: {why_not}")
        head = head_tree_of(context, root / "head")
        tests = _test_sources(head)
        tool = root / "tool"
        tool.mkdir()
        runner = copy_runner(tool)
        io = root / "io"
        io.mkdir()
        seed_hypothesis_tables(io)
        site_packages = project_site_packages(context.root)
        where = Where(sandbox, io, [base, head, tool, *map(Path, site_packages)], head)
        results: dict[int, FunctionResult] = {}
        runnable = []
        for number, function in enumerate(functions):
            if number >= limits.max_functions:
                results[number] = FunctionResult(function, "not_run", why=(
                    f"over the {limits.max_functions} functions compared per review"))
            elif not function.module:
                results[number] = FunctionResult(function, "not_run", why="not in an importable module")
            else:
                function.calls = test_calls(tests, function.qualname)
                runnable.append(number)
        changed = [functions[n] for n in runnable]
        makers = test_makers(tests, _package_names(head, changed)) if changed else []
        names = ", ".join(f"{functions[n].qualname}()" for n in runnable)
        if runnable:
            progress(f"running the old and new {names} ({len(runnable)} function(s), one sandboxed process)")
        specs = {n: {**functions[n].spec(), "old_root": str(base), "new_root": str(head),
                     "seconds": limits.seconds, "max_examples": limits.max_examples,
                     "site_packages": site_packages, "makers": makers} for n in runnable}
        started = time.monotonic()  # the plan is for the searches (the trees are extracted by now)
        _search(functions, runnable, specs, runner, where, limits, started, results)
        for number in runnable:
            if results[number].status == "not_run":
                results[number].withheld, results[number].why = withheld_by_change(results[number].why,
                                                                                   context, base)
        for number in runnable:
            if (results[number].status == "same" and functions[number].kind == "function"
                    and functions[number].annotated and limits.crosshair_seconds > 0):
                _crosshair(results[number], specs[number], runner, where,
                           limits.plan_seconds - (time.monotonic() - started), limits, progress)
    return BehaviourDiff(results=[results[n] for n in sorted(results)])


def _crosshair(result: FunctionResult, spec: dict, runner: Path, where: Where, left: float, limits: Limits,
               progress) -> None:
    """CrossHair on a function Hypothesis found no difference in, with what is left of the plan (at most
    ``crosshair_seconds``); ``result`` filled when it finds one."""
    if left < CROSSHAIR_START + 1:
        result.crosshair = "not run: the time plan was spent"
        return
    seconds = min(limits.crosshair_seconds, left - CROSSHAIR_START)
    progress(f"searching {result.function.qualname}() symbolically (CrossHair, {seconds:.0f} s)")
    begun = time.monotonic()
    found = crosshair(spec, runner, where, seconds)
    result.seconds += time.monotonic() - begun
    result.crosshair = "found a difference" if found else f"found none in {seconds:.1f} s"
    if found:
        result.status, result.difference = "differs", found


def _search(functions: list[ChangedFunction], runnable: list[int], specs: dict[int, dict], runner: Path,
            where: Where, limits: Limits, started: float, results: dict[int, FunctionResult]) -> None:
    """The runner on every runnable function in one process; when a function brings it down (a crash, its
    time box), it is listed as not run and a new process takes the rest while the time plan lasts."""
    pending = list(runnable)
    while pending:
        left = limits.plan_seconds - (time.monotonic() - started)
        if left <= 0:
            for number in pending:
                results[number] = FunctionResult(functions[number], "not_run", why=(
                    f"the behavioural diff's time plan ({limits.plan_seconds:g} s) was spent"))
            return
        box = 2 * left + STARTUP_SECONDS  # the plan is the runner's own; the box only ends a runaway
        batch = run_batch([specs[n] for n in pending], runner, where, left, box)
        for number, data in zip(pending, batch.done, strict=False):
            results[number] = FunctionResult(
                functions[number], data["status"], why=data.get("why", ""), tried=data.get("tried", 0),
                difference=data.get("difference"), docstring=data.get("docstring") or [],
                seconds=data.get("seconds", 0.0))
        if not batch.stopped:
            return
        failed = pending[len(batch.done)]
        # the new version ran past the box on an input the old one returned on: a hang, not "could not run"
        results[failed] = (FunctionResult(functions[failed], "differs", tried=1, difference=batch.hang,
                                          seconds=box) if batch.hang
                           else FunctionResult(functions[failed], "not_run", why=batch.stopped))
        pending = pending[len(batch.done) + 1:]


def _package_names(head: Path, functions: list[ChangedFunction]) -> set[str]:
    """What the changed modules and their top package's ``__init__`` define or import: the names whose
    literal calls in the tests most likely build the inputs the changed functions take."""
    out: set[str] = set()
    for path in {f.path for f in functions} | {_package_init(f) for f in functions}:
        try:
            out |= defined_names((head / path).read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
    return out


def _package_init(function: ChangedFunction) -> str:
    parts = Path(function.path).parts
    top = function.module.split(".")[0]
    return str(Path(*parts[:parts.index(top) + 1], "__init__.py")) if top in parts else function.path


_SKIPPED_DIRS = {"node_modules", "site-packages", "venv", "build", "dist", "__pycache__"}


def _test_sources(tree: Path, limit: int = 200) -> list[str]:
    """The text of the project's test files (for literal calls of the changed functions); hidden folders,
    virtual environments and build output are not walked (the checkout of uncommitted work may hold them)."""
    out = []
    for folder, dirs, files in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIPPED_DIRS)
        for name in sorted(files):
            path = Path(folder) / name
            if name.endswith(".py") and is_test_path(path.relative_to(tree).as_posix()):
                try:
                    out.append(path.read_text(encoding="utf-8", errors="replace"))
                except OSError:
                    continue
            if len(out) >= limit:
                return out
    return out
