"""Children start with Ctrl-C and Ctrl-\\ at their default meaning, even when acode's own were ignored.

A shell without job control starts every ``command &`` with SIGINT and SIGQUIT ignored, and an ignored
signal stays ignored across fork and exec. So under ``acode review … &`` (or a script, a CI step, a
benchmark started in the background) a project's test that interrupts a child and waits for it to stop
waited until the time limit instead: acode's own suite took over 120 s that way, and 60 s otherwise.
The children run in their own session, so giving them back the default cannot let a terminal's
Ctrl-C reach them.

``Popen``'s ``preexec_fn`` could reset the signals but is unsafe when threads run; a tiny launcher that
resets them and then execs the real command is safe, and is only added when something is ignored.
"""

from __future__ import annotations

import signal
import sys

_RESET = (signal.SIGINT, signal.SIGQUIT)

_LAUNCHER = """\
import os, signal, sys
for number in (signal.SIGINT, signal.SIGQUIT):
    signal.signal(number, signal.SIG_DFL)
try:
    os.execvp(sys.argv[1], sys.argv[1:])
except OSError as exc:
    print(f"could not start {sys.argv[1]}: {exc.strerror}", file=sys.stderr)
    sys.exit(127)
"""


def ignored_signals() -> list[signal.Signals]:
    return [number for number in _RESET if signal.getsignal(number) == signal.SIG_IGN]


def with_default_signals(argv: list[str]) -> list[str]:
    """``argv`` itself, or behind the launcher when this process ignores SIGINT or SIGQUIT."""
    if not ignored_signals():
        return argv
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, *argv]


def shell_argv(command: str, shell: str = "/bin/sh") -> list[str]:
    """What ``Popen(command, shell=True)`` would run, with default signals."""
    return with_default_signals([shell, "-c", command])
