"""Run pytest and record, per test, which functions of the project it executed (spectrum.py reads it).

Run by path with the project's own Python, never imported by acode: it needs only the standard library
and the project's pytest. ``python spectrum_runner.py OUT.json [pytest arguments]`` prints what pytest
prints and exits with its exit code; OUT.json gets:

    {"functions": [[file, qualified name, first line], ...],
     "tests": {node id: {"failed": bool, "functions": [index, ...]}}}

Only function entries are traced (``sys.settrace``'s "call" event, no line events), and only code under
the current folder is kept."""

import json
import os
import sys
import threading

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
        self.tests: dict = {}

    def trace(self, frame, event, arg):
        if event != "call" or self.current is None or self.muted:
            return None
        code = frame.f_code
        found = self.index.get(code)
        if found is None:
            found = self.index[code] = self._register(code)
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


def main() -> int:
    out, args = sys.argv[1], sys.argv[2:]
    recorder = Recorder(os.path.abspath(os.getcwd()))
    sys.settrace(recorder.trace)
    threading.settrace(recorder.trace)
    try:
        code = pytest.main(args, plugins=[recorder])
    finally:
        sys.settrace(None)
        threading.settrace(None)
        recorder.dump(out)
    return int(code)


if __name__ == "__main__":
    sys.exit(main())
