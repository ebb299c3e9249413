"""The behaviour runner's outcomes (``runner``, in the child process): one guarded call of the code
under review and what it did, compared with the other version's and put in words.

A call runs on deep copies of its arguments with a per-call alarm; its outcome is the value returned (or the
exception type raised, or the alarm) and the arguments as the call left them. While the code under review
runs, an audit hook refuses file writes, network and processes (``IOAttempt``). Standard library only and
nothing of acode: the runner loads this file by its path.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import itertools
import json
import re
import signal
import sys
import time
from pathlib import Path

CALL_SECONDS = 2.0
# a call that ran out of its time is run once more with this many times the limit before it counts as a hang:
# a slow function that gives the same answer is not one that never returns
HANG_PATIENCE = 2.0
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_WRITE_MODES = set("wax+")
_NETWORK = {"socket.connect", "socket.bind", "socket.sendto", "socket.getaddrinfo", "socket.__new__"}
_PROCESS = {"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
            "os.forkpty", "pty.spawn"}
_FILES = {"os.remove", "os.unlink", "os.rename", "os.replace", "os.rmdir", "os.mkdir", "shutil.rmtree",
          "shutil.move", "shutil.copyfile", "os.truncate", "os.chmod", "os.symlink", "os.link"}


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


def guard_calls() -> None:
    """Every ``outcome`` from now on under the per-call alarm and the audit hook."""
    signal.signal(signal.SIGALRM, _on_alarm)
    sys.addaudithook(_audit)


def clear_attempt() -> None:
    """Before the next function: what the last one attempted must not stop the next one's calls."""
    _Guard.attempted = ""


def outcome(factory, args: tuple, kwargs: dict, seconds: float = CALL_SECONDS) -> dict:
    """What one call does: returned value or raised type (or ran out of ``seconds``), its arguments after
    the call, and how long it took."""
    try:
        args, kwargs = copy.deepcopy(args), copy.deepcopy(kwargs)
    except Exception as exc:  # noqa: BLE001 - an input each version cannot get a fresh copy of is not run
        return {"kind": "raise", "type": f"uncopyable input ({type(exc).__name__})", "module": "builtins",
                "args": (args, kwargs), "seconds": 0.0}
    sink = io.StringIO()
    started = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
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
        result = {"kind": "timeout", "limit": seconds}
    except RecursionError:
        result = {"kind": "raise", "type": "RecursionError", "module": "builtins"}
    except SystemExit as exc:  # a command line exits: its code is an outcome, not the runner's end
        result = {"kind": "raise", "type": "SystemExit", "module": "builtins", "code": _exit_code(exc.code)}
    except Exception as exc:  # noqa: BLE001 - any exception is an outcome to compare
        result = {"kind": "raise", "type": type(exc).__name__, "module": type(exc).__module__}
    finally:
        _Guard.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
    if _Guard.attempted:
        raise IOAttempt(_Guard.attempted)
    result["args"] = (args, kwargs)
    result["seconds"] = time.monotonic() - started
    return result


def _exit_code(code) -> int | str | None:
    return code if code is None or isinstance(code, int) else show(code)


def same(a, b) -> bool:
    try:
        equal = bool(a == b)
    except Exception:  # noqa: BLE001 - a comparison that fails is decided by the text
        equal = False
    return equal or (show(a) == show(b) and state(a) == state(b))


def state(value, depth: int = 0) -> str:
    """What a value holds as text, looking inside objects whose own text says nothing (``<pkg.Column
    object>``, equal by their text whatever they hold): ``Column(name='a', wrap=True)``."""
    if depth > 4:
        return show(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(state(v, depth + 1) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{show(k)}: {state(v, depth + 1)}" for k, v in value.items()) + "}"
    if type(value).__repr__ is object.__repr__:
        try:
            attributes = dict(vars(value))
        except TypeError:  # __slots__: the slots' values
            attributes = {n: getattr(value, n, None) for c in type(value).__mro__
                          for n in getattr(c, "__slots__", ())}
        inner = ", ".join(f"{k}={state(v, depth + 1)}" for k, v in attributes.items())
        return f"{type(value).__qualname__}({inner})"
    return show(value)


def where_they_differ(old: str, new: str, before: int = 60) -> tuple[str, str]:
    """``returns <old>`` and ``returns <new>``, each cut to the stretch where the two texts first differ."""
    at = next((i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b), min(len(old), len(new)))
    start = max(0, at - before)
    return tuple(_cut(f"returns {'…' if start else ''}{text[start:]}") for text in (old, new))  # type: ignore[return-value]


def show(value) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001
        text = f"<unrepresentable {type(value).__name__}: {type(exc).__name__}>"
    return _cut(_ADDRESS.sub("", text))


def _cut(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def describe(result: dict) -> str:
    if result["kind"] == "return":
        return f"returns {show(result['value'])}"
    if result["kind"] == "timeout":
        return f"does not finish in {result.get('limit', CALL_SECONDS):g} s"
    if "code" in result:
        return f"raises SystemExit({result['code']!r})"
    return f"raises {result['type']}"


def differ(old: dict, new: dict) -> str:
    """'' when the outcomes agree, else what differs ('result' or 'arguments')."""
    if old["kind"] != new["kind"]:
        return "result"
    if old["kind"] == "return" and not same(old["value"], new["value"]):
        return "result"
    if old["kind"] == "raise" and (old["type"], old.get("code")) != (new["type"], new.get("code")):
        return "result"
    if not same(old["args"], new["args"]):
        return "arguments"
    return ""


def call_text(name: str, args: tuple, kwargs: dict) -> str:
    parts = [show(a) for a in args] + [f"{k}={show(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def after_text(result: dict, what: str) -> str:
    text = describe(result)
    if what == "arguments":
        args, kwargs = result["args"]
        text += f", leaving the arguments as {call_text('', args, kwargs)[1:-1] or '()'}"
    return text


def kind_of(old: dict, new: dict, what: str) -> str:
    """What sort of difference: 'hang' (one version returns, the other never does), 'raises' (one returns,
    the other raises), 'both_raise', 'returns' (both return, different values) or 'arguments'."""
    if what == "arguments":
        return "arguments"
    kinds = {old["kind"], new["kind"]}
    if "timeout" in kinds:
        return "hang" if "return" in kinds else "timeout"
    if kinds == {"return", "raise"}:
        return "raises"
    return "both_raise" if kinds == {"raise"} else "returns"


class InFlight:
    path: Path | None = None  # set by ``main``: next to the results file


@contextlib.contextmanager
def in_flight(text: str, before: dict, spec: dict):
    """While the new version runs on an input the old one returned on, a note of it in a file: a call the
    per-call alarm cannot stop (a bare ``except:`` that swallows it, a loop inside C code) brings the whole
    child to its time box, and the note tells the parent which input the new version never returned on."""
    path = InFlight.path
    if path is None or before["kind"] != "return":
        yield
        return
    note = {"index": spec.get("index", -1), "input": text, "old": describe(before),
            "seconds": before["seconds"]}
    path.write_text(json.dumps(note), encoding="utf-8")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)


@contextlib.contextmanager
def importing_new(spec: dict):
    """While the new version's module is imported (the old one imported), a note of it in the in-flight
    file: an import that hangs or ends the child is the change's doing, and the note tells the parent so."""
    path = InFlight.path
    if path is None:
        yield
        return
    note = {"index": spec.get("index", -1), "importing": spec["module"]}
    path.write_text(json.dumps(note), encoding="utf-8")
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
