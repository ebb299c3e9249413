"""The behavioural diff: run the old and the new version of each function a change alters on the same inputs,
in the review's sandbox, and say where they differ.

Both versions of the repository are extracted (``git archive``) into a temporary folder; per function one
child process (``behaviour_runner.py``, a script that imports nothing of acode) loads the function from each
tree and compares the outcomes on the docstring's examples, the tests' literal calls, the body's literals
and Hypothesis' inputs; when that finds nothing and every parameter is annotated, CrossHair's
``diffbehavior`` searches symbolically in a second process. Both run in bubblewrap (``acode.sandbox``: no
network, the file system read-only but for one scratch folder, credentials hidden), each in its own time
box. What could not be run (the module does not import on one side, the function writes files or uses the
network, a class that cannot be built without arguments, the time box ran out) is listed with the reason,
never guessed."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from acode.child_signals import with_default_signals
from acode.review.behaviour_inputs import ChangedFunction, changed_functions, test_calls
from acode.review.git_context import read_new_text, read_old_text
from acode.review.models import ReviewContext, is_test_path
from acode.review.test_contrast import base_tree_of, head_tree_of
from acode.sandbox import Sandbox, sandbox_env

RUNNER = Path(__file__).with_name("behaviour_runner.py")
SHIM = """import importlib.util, json, sys
_spec = importlib.util.spec_from_file_location("acode_behaviour_runner", {runner!r})
_runner = importlib.util.module_from_spec(_spec)
sys.modules["acode_behaviour_runner"] = _runner
_spec.loader.exec_module(_runner)
_s = json.load(open({spec!r}))
old = _runner.load(_s["old_root"], _s["module"], _s["qualname"], _s["kind"])[1]
new = _runner.load(_s["new_root"], _s["module"], _s["qualname"], _s["kind"])[1]
"""
_GIVEN = re.compile(r"^Given: \((?P<input>.*)\),?\s*$")
STARTUP_SECONDS = 8.0  # a child's Python, Hypothesis or CrossHair imports, on a busy machine


@dataclass
class FunctionResult:
    function: ChangedFunction
    status: str  # differs | same | not_run
    why: str = ""  # for not_run
    tried: int = 0
    difference: dict | None = None  # {"input", "old", "new", "found_by", "what"}
    docstring: list[dict] = field(default_factory=list)  # examples with expected output, per side
    seconds: float = 0.0

    def record(self) -> dict:
        return {"file": self.function.path, "function": self.function.qualname, "line": self.function.line,
                "status": self.status, "why": self.why, "tried": self.tried, "difference": self.difference,
                "docstring": self.docstring, "seconds": round(self.seconds, 1)}


@dataclass
class BehaviourDiff:
    results: list[FunctionResult] = field(default_factory=list)
    note: str = ""  # why nothing ran (no sandbox, no base), or what was left out

    def record(self) -> dict:
        return {"functions": [r.record() for r in self.results], "note": self.note}


@dataclass
class Limits:
    seconds: float = 6.0  # Hypothesis' search per function
    crosshair_seconds: float = 4.0  # CrossHair's CPU seconds per function (0: not used)
    max_functions: int = 8
    max_examples: int = 200


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
    caller was asked to run the change's code without one)."""
    functions = functions_of_change(context)
    if not functions:
        return BehaviourDiff()
    diff = BehaviourDiff()
    with tempfile.TemporaryDirectory(prefix="acode-review-behaviour-") as tmp:
        root = Path(tmp)
        base, why_not = base_tree_of(context, root / "base")
        if base is None:
            return BehaviourDiff(note=f"not run: {why_not}")
        head = head_tree_of(context, root / "head")
        tests = _test_sources(head)
        tool = root / "tool"
        tool.mkdir()
        runner = Path(shutil.copy(RUNNER, tool / RUNNER.name))
        for number, function in enumerate(functions):
            if number >= limits.max_functions:
                why = f"over the {limits.max_functions} functions compared per review"
                diff.results += [FunctionResult(f, "not_run", why=why) for f in functions[number:]]
                break
            if not function.module:
                diff.results.append(FunctionResult(function, "not_run", why="not in an importable module"))
                continue
            function.calls = test_calls(tests, function.qualname)
            progress(f"running the old and new {function.qualname}() ({number + 1}/{len(functions)})")
            io = root / f"io-{number}"
            io.mkdir()
            spec = {**function.spec(), "old_root": str(base), "new_root": str(head),
                    "seconds": limits.seconds, "max_examples": limits.max_examples}
            (io / "spec.json").write_text(json.dumps(spec), encoding="utf-8")
            where = Where(sandbox, io, [base, head, tool], head)
            result = _run_search(function, runner, where, limits)
            if result.status == "same" and function.kind == "function" and function.annotated \
                    and limits.crosshair_seconds > 0:
                _crosshair(result, runner, where, limits)
            diff.results.append(result)
    return diff


@dataclass
class Where:
    sandbox: Sandbox | None
    io: Path  # the only writable folder
    readable: list[Path]
    cwd: Path


def _child(argv: list[str], where: Where, timeout: float) -> tuple[int | None, str]:
    """(exit code, output) of ``argv`` in the sandbox; exit None when it ran out of time (killed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONPATH=str(where.io))
    if where.sandbox is not None:
        readable = [p for p in where.readable if p.resolve().is_relative_to(Path("/tmp").resolve())]
        argv = where.sandbox.command(argv, writable=[where.io], cwd=where.io, readable=readable, env=env)
        env = sandbox_env(env)
    proc = subprocess.Popen(with_default_signals(argv), cwd=where.io, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                            start_new_session=True, env=env)
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, ""
    return proc.returncode, output or ""


def _run_search(function: ChangedFunction, runner: Path, where: Where, limits: Limits) -> FunctionResult:
    started = time.monotonic()
    out = where.io / "out.json"
    box = limits.seconds * 2 + STARTUP_SECONDS
    code, output = _child([sys.executable, str(runner), str(where.io / "spec.json"), str(out)], where, box)
    seconds = time.monotonic() - started
    if code is None:
        return FunctionResult(function, "not_run", why=f"did not finish in its time box ({box:g} s)",
                              seconds=seconds)
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        last = (output.strip().splitlines() or [f"exit {code}"])[-1][:200]
        return FunctionResult(function, "not_run", why=f"the runner failed ({last})", seconds=seconds)
    return FunctionResult(function, data["status"], why=data.get("why", ""), tried=data.get("tried", 0),
                          difference=data.get("difference"), docstring=data.get("docstring") or [],
                          seconds=seconds)


def _crosshair(result: FunctionResult, runner: Path, where: Where, limits: Limits) -> None:
    """CrossHair's symbolic search for an input where the two versions differ; fills ``result`` when it
    finds one."""
    started = time.monotonic()
    (where.io / "acode_behaviour_shim.py").write_text(
        SHIM.format(runner=str(runner), spec=str(where.io / "spec.json")), encoding="utf-8")
    argv = [sys.executable, "-m", "crosshair", "diffbehavior", "acode_behaviour_shim.old",
            "acode_behaviour_shim.new", "--exception_equivalence", "SAME_TYPE",
            "--per_condition_timeout", f"{limits.crosshair_seconds:g}"]
    code, output = _child(argv, where, limits.crosshair_seconds * 3 + STARTUP_SECONDS)
    result.seconds += time.monotonic() - started
    found = parse_crosshair(output, result.function.qualname) if code == 1 else None
    if found:
        result.status, result.difference = "differs", found


def parse_crosshair(output: str, name: str) -> dict | None:
    """``Given: (x=1), / old : returns 1 / new : returns 2`` -> the difference, or None."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        given = _GIVEN.match(line.strip())
        if not given:
            continue
        sides = {}
        for follow in lines[number + 1:number + 3]:
            label, _, what = follow.strip().partition(" : ")
            sides[label.rsplit(".", 1)[-1]] = what.strip()
        if "old" in sides and "new" in sides:
            return {"input": f"{name}({given.group('input')})", "old": sides["old"], "new": sides["new"],
                    "found_by": "crosshair", "what": "result"}
    return None


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
