"""Run pytest and record, per test, which functions of the project it executed (spectrum.py reads it).

Run by path with the project's own Python, never imported by acode: it needs only the standard library
and the project's pytest. ``python spectrum_runner.py OUT.json [pytest arguments]`` prints what pytest
prints and exits with its exit code; OUT.json gets:

    {"functions": [[file, qualified name, first line], ...],
     "tests": {node id: {"failed": bool, "functions": [index, ...]}}}

Only function entries are seen, and only code under the current folder is kept. On Python 3.12 and later
through ``sys.monitoring``: each function is reported once per test (the event is disabled until the next
test starts), so a hot loop costs nothing, and ``sys.gettrace()`` stays None for code that asks whether a
debugger runs it. Before 3.12, ``sys.settrace``'s "call" events (no line events): every call costs a
Python function call."""

import importlib.util
import json
import os
import sys
import threading
from collections.abc import Callable

import pytest

OUTSIDE, MUTED = -1, -2
# pytest's own code that runs inside a test only when it fails (an assertion's explanation calls the
# compared objects' __repr__, __eq__...): nothing it calls is counted
_REPORTING = tuple(os.sep + os.path.join("_pytest", part) + os.sep for part in ("assertion", "_io", "_code"))

_ANONYMOUS = ("<listcomp>", "<genexpr>", "<dictcomp>", "<setcomp>", "<lambda>")


class Recorder:
    def __init__(self, root: str):
        self.root = root
        self.index: dict = {}  # code object -> its index in ``functions``, OUTSIDE or MUTED
        self.functions: list = []
        self.named: dict = {}  # (file, qualified name) -> its index in ``functions``
        self.current: set | None = None  # the running test's functions, while a phase of it runs
        self.muted = False  # inside pytest's reporting code
        # sys.monitoring: re-enables the events each test's start
        self.restart: Callable[[], None] | None = None
        self.tests: dict = {}

    def see(self, code) -> int:
        found = self.index.get(code)
        if found is None:
            found = self.index[code] = self._register(code)
        return found

    def trace(self, frame, event, arg):
        """``sys.settrace``'s global trace function: Python before 3.12."""
        if event != "call" or self.current is None or self.muted:
            return None
        found = self.see(frame.f_code)
        if found >= 0:
            self.current.add(found)
        elif found == MUTED:
            self.muted = True
            return self._unmute  # a local trace function: told when this frame returns
        return None  # no line events

    def _unmute(self, frame, event, arg):
        if event == "return":
            self.muted = False
        return self._unmute

    def _register(self, code) -> int:
        if code.co_filename.startswith("<"):  # <string>, <frozen os>: no file of the project
            return OUTSIDE
        path = os.path.abspath(code.co_filename)
        if any(part in path for part in _REPORTING):
            return MUTED
        if not path.startswith(self.root + os.sep) or os.sep + "site-packages" + os.sep in path:
            return OUTSIDE
        if code.co_name == "<module>":  # a module imported during a test: no evidence about the test
            return OUTSIDE
        # a comprehension or lambda counts as the function it is written in
        parts = getattr(code, "co_qualname", code.co_name).split(".")
        while len(parts) > 2 and parts[-1] in _ANONYMOUS and parts[-2] == "<locals>":
            parts = parts[:-2]
        key = (os.path.relpath(path, self.root), ".".join(parts))
        if key not in self.named:
            self.named[key] = len(self.functions)
            self.functions.append([*key, code.co_firstlineno])
        return self.named[key]

    # pytest hooks: a test's setup, call and teardown are recorded, not the making of its report
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self.tests[item.nodeid] = {"failed": False, "functions": set()}
        if self.restart is not None:
            self.restart()

    def _start(self, item):
        self.current = self.tests[item.nodeid]["functions"]

    pytest_runtest_setup = pytest.hookimpl(tryfirst=True)(_start)
    pytest_runtest_call = pytest.hookimpl(tryfirst=True)(_start)
    pytest_runtest_teardown = pytest.hookimpl(tryfirst=True)(lambda self, item, nextitem: self._start(item))

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item, call):
        self.current = None

    def pytest_runtest_logreport(self, report):
        entry = self.tests.get(report.nodeid)
        if entry is not None and report.failed:
            entry["failed"] = True

    def dump(self, out: str) -> None:
        tests = {node: {"failed": entry["failed"], "functions": sorted(entry["functions"])}
                 for node, entry in self.tests.items()}
        with open(out, "w", encoding="utf-8") as handle:
            json.dump({"functions": self.functions, "tests": tests}, handle)


def monitor(recorder: Recorder) -> bool:
    """Function entries through ``sys.monitoring`` (Python 3.12+); False when it is not there or every
    tool id is taken (a debugger, coverage)."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is None:
        return False
    free = [t for t in range(monitoring.PROFILER_ID, 6) if monitoring.get_tool(t) is None]
    if not free:
        return False
    tool, events = free[0], monitoring.events
    monitoring.use_tool_id(tool, "acode-spectrum")
    muted = [0]  # pytest's reporting frames open

    def start(code, offset):
        if recorder.current is None:
            return None  # between tests: keep it enabled for the next one
        found = recorder.see(code)
        if found == MUTED:
            muted[0] += 1
            monitoring.set_local_events(tool, code, events.PY_RETURN)
            return None
        if muted[0]:
            return None
        if found >= 0:
            recorder.current.add(found)
        return monitoring.DISABLE  # seen for this test: no more events until the next one starts

    def leave(code, offset, *rest):
        if muted[0] and recorder.index.get(code) == MUTED:
            muted[0] -= 1

    monitoring.register_callback(tool, events.PY_START, start)
    monitoring.register_callback(tool, events.PY_RETURN, leave)
    monitoring.register_callback(tool, events.PY_UNWIND, leave)
    monitoring.set_events(tool, events.PY_START | events.PY_UNWIND)

    def restart():
        muted[0] = 0  # a reporting frame that never returned (a generator) mutes no other test
        monitoring.restart_events()

    recorder.restart = restart
    return True


def without_coverage(args: list) -> list:
    """``args`` with pytest-cov's ``--no-cov`` when its plugin loads (a project's addopts often has
    ``--cov``): before 3.12 its tracer takes sys.settrace's one slot from this runner's, and nothing would
    be recorded (semver); from 3.12 it is only time spent."""
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD") or importlib.util.find_spec("pytest_cov") is None:
        return args
    return ["--no-cov", *args]


def main() -> int:
    out, args = sys.argv[1], without_coverage(sys.argv[2:])
    recorder = Recorder(os.path.abspath(os.getcwd()))
    traced = not monitor(recorder)
    if traced:
        sys.settrace(recorder.trace)
        threading.settrace(recorder.trace)
    try:
        code = pytest.main(args, plugins=[recorder])
    finally:
        if traced:
            sys.settrace(None)
            threading.settrace(None)
        recorder.dump(out)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
