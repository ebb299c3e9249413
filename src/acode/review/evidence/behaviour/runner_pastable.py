"""A pytest test a user can paste for a behavioural difference (``runner``, in the child process,
where the values are): it imports the module, repeats the call or the call sequence, and asserts what the
OLD version did, so it fails on the new code and passes on the old. Standard library only, nothing of
acode: the runner loads this file by its path.

A step is ``{"owner": "obj" | "Class" | "", "name": "add", "args": (..), "kwargs": {..}, "attribute": bool,
"old": outcome}`` (``outcome`` as ``runner_outcomes.outcome`` gives it); the last step is the one
whose outcome differs and is asserted, the earlier ones are repeated as they were (a step that raised on
both sides under ``pytest.raises``). A value with no literal form (an object whose text says nothing) gets
no test: ``None``, and the reason is said instead."""

from __future__ import annotations

import ast
import re

HANG_SECONDS = 10  # what the pasted test gives a call the change made never return
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


class NoTest(Exception):
    """The difference cannot be written as a test (the reason is the message)."""


def literal(value) -> str:
    """``value`` as Python source that evaluates to an equal value; ``NoTest`` when it has none."""
    try:
        text = repr(value)
        same = ast.literal_eval(text) == value
    except Exception:  # noqa: BLE001 - any failure means: no literal form
        same = False
    if not same:
        raise NoTest(f"the value {type(value).__name__} has no literal form")
    return text


def _expected(value, expression: str) -> str:
    """The assertion that ``expression`` gives ``value`` again: by ``==`` to a literal, else by its text."""
    try:
        return f"assert {expression} == {literal(value)}"
    except NoTest:
        text = repr(value)
        if _ADDRESS.search(text) or text.startswith("<"):
            raise
        return f"assert repr({expression}) == {text!r}"


def _call(step: dict, imports: dict[str, str], module: str) -> str:
    target = f"{step['owner']}.{step['name']}" if step["owner"] else step["name"]
    if step.get("attribute"):
        return target
    parts = [literal(a) for a in step["args"]] + [f"{k}={literal(v)}" for k, v in step["kwargs"].items()]
    return f"{target}({', '.join(parts)})"


def _exception(outcome: dict, module: str, imports: dict[str, str]) -> str:
    name, where = outcome["type"], outcome.get("module", "builtins")
    if where == "builtins":
        return name
    if where == module:
        imports.setdefault(name, f"from {module} import {name}")
        return name
    imports.setdefault(where, f"import {where}")
    return f"{where}.{name}"


def test_text(module: str, imported: str, steps: list[dict], what: str, test_name: str) -> str:
    """The pytest test for ``steps`` (see the module's docstring); ``NoTest`` when it cannot be written.
    ``imported`` is the name the test imports from ``module`` (the function, or the class)."""
    imports = {imported: f"from {module} import {imported}"}
    body: list[str] = []
    hang = False
    for number, step in enumerate(steps):
        call, old, last = _call(step, imports, module), step["old"], number == len(steps) - 1
        if step.get("assign"):  # the object the sequence runs on
            body.append(f"{step['assign']} = {call}")
            continue
        if old["kind"] == "raise":
            imports["pytest"] = "import pytest"
            exited = " as exited" if "code" in old else ""
            body += [f"with pytest.raises({_exception(old, module, imports)}){exited}:", f"    {call}"]
            if "code" in old:  # a command that exits: with the code it exited with
                body.append(f"assert exited.value.code == {literal(old['code'])}")
        elif old["kind"] != "return":
            raise NoTest("the old version did not finish either")
        elif not last:
            body.append(call)
        elif what == "arguments":
            args, kwargs = old["args"]
            body += [f"args = {literal(list(step['args']))}", f"kwargs = {literal(dict(step['kwargs']))}",
                     f"{call.split('(')[0]}(*args, **kwargs)",
                     f"assert (args, kwargs) == ({literal(list(args))}, {literal(dict(kwargs))})"]
        elif type(old["value"]).__name__ == "_Self":  # the call returns the object it was called on
            body.append(f"assert {call} is {step['owner']}")
        else:
            body.append(_expected(old["value"], call))
        hang = hang or (last and step.get("new_kind") == "timeout")
    if hang:  # the new version never returns: the test must end all the same, and say why
        imports["signal"] = "import signal"
        body = (["signal.signal(signal.SIGALRM, _never_returned)", f"signal.alarm({HANG_SECONDS})", "try:"]
                + [f"    {line}" for line in body] + ["finally:", "    signal.alarm(0)"])
    lines = sorted(v for v in imports.values() if v.startswith("import ")) + sorted(
        v for v in imports.values() if v.startswith("from "))
    out = [*lines, "", ""]
    if hang:
        out += ["def _never_returned(signum, frame):",
                f"    raise TimeoutError('did not return in {HANG_SECONDS} s')", "", ""]
    out += [f"def {test_name}():", *[f"    {line}" for line in body]]
    return "\n".join(out) + "\n"


def test_name(qualname: str) -> str:
    return "test_" + re.sub(r"\W+", "_", qualname.replace(".", "_")).strip("_").lower() + "_as_before"
