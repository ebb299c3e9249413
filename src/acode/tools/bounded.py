"""Run a pure function with a hard time limit: in a worker process that is killed when time is up.

Python's regex engine cannot be interrupted from another thread, and a pattern such as ``(a|aa)+$``
backtracks for longer than any user waits, so the search tools run their regex work here. Workers come
from a ``forkserver`` (started once per process, holding the search modules already imported), so a
call costs a fork, not a Python start-up; the worker never shares the caller's threads or locks.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from typing import Any

_PRELOAD = ["acode.tools.search_engines"]
_lock = threading.Lock()
_context = None


class BoundedTimeout(Exception):
    """The function did not finish in time; its worker was killed."""


def _mp_context():
    global _context
    with _lock:
        if _context is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(_PRELOAD)
            _context = context
        return _context


def _worker(conn, function: Callable, args: tuple) -> None:
    try:
        conn.send(("ok", function(*args)))
    except BaseException as exc:  # noqa: BLE001 - sent back and raised again in the caller
        conn.send(("error", exc))
    finally:
        conn.close()


def run_bounded(function: Callable[..., Any], args: tuple, *, timeout: float, inline: bool = False) -> Any:
    """``function(*args)``, or BoundedTimeout after ``timeout`` seconds. ``inline`` runs it here
    (for work known to be fast). ``function``, its arguments and its result must pickle."""
    if inline:
        return function(*args)
    context = _mp_context()
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_worker, args=(sender, function, args), daemon=True)
    process.start()
    sender.close()
    try:
        if not receiver.poll(timeout):
            raise BoundedTimeout(f"{getattr(function, '__name__', 'work')} took longer than {timeout:g}s")
        try:
            status, value = receiver.recv()
        except EOFError as exc:  # the worker died without an answer (killed, out of memory)
            raise RuntimeError(
                f"the worker process ended without a result (exit code {process.exitcode})"
            ) from exc
    finally:
        if process.is_alive():
            process.kill()
        process.join()
        receiver.close()
    if status == "error":
        raise value
    return value
