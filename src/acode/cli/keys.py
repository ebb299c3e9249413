"""One key press as an answer (``y`` / ``n`` / ``a``), as Gemini CLI's and aider's confirmations take it:
no Enter needed in a terminal. Without a terminal (a pipe, a test feeding lines) a whole line is read
and its first character counts."""

from __future__ import annotations

import os
import sys
from typing import Any

END_OF_INPUT = "\x04"  # Ctrl-D


def read_key(console: Any, prompt: str) -> str:
    """The key pressed (lower case; ``""`` for Enter, ``END_OF_INPUT`` for Ctrl-D / end of input). Ctrl-C
    raises KeyboardInterrupt as usual."""
    stream = sys.stdin
    if not (stream.isatty() and console.is_terminal):
        try:
            line = console.input(prompt)
        except EOFError:
            return END_OF_INPUT
        return line.strip()[:1].lower()
    import termios
    import tty

    console.print(prompt, end="", markup=True, highlight=False)
    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    try:
        termios.tcflush(fd, termios.TCIFLUSH)  # a key typed before the question was shown is no answer
        tty.setcbreak(fd)  # one key at a time; Ctrl-C still interrupts
        key = os.read(fd, 1).decode("utf-8", errors="replace")
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
    key = "" if key in ("\r", "\n") else key.lower()
    console.print(key if key.isprintable() else "", highlight=False, markup=False)
    return key
