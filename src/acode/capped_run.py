"""A child process (the code under review: its tests, the behavioural runner) whose output is read with a
cap: the last ``keep`` bytes are kept, the rest only counted. ``communicate()`` keeps everything, so a test
writing 300 MB to its pipe grew the review by as much.

It runs in its own process group, all of which is ended when the time is up; stdin is closed, so code
that reads it gets end of file instead of waiting for a terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from acode.child_signals import with_default_signals

KEEP_BYTES = 64 * 1024
_READ = 64 * 1024
_DRAIN_SECONDS = 5.0  # after the group ended: a process that left it may still hold the pipe


@dataclass
class CappedRun:
    returncode: int | None  # None: ran out of time (killed)
    output: str  # the last ``keep`` bytes of stdout and stderr, decoded
    total_bytes: int  # all it wrote, kept or not

    @property
    def cut(self) -> int:
        """Bytes written and not kept."""
        return max(0, self.total_bytes - len(self.output.encode("utf-8", errors="replace")))


def run_capped(argv: list[str], *, cwd: Path, env: dict[str, str] | None, timeout: float,
               keep: int = KEEP_BYTES) -> CappedRun:
    proc = subprocess.Popen(with_default_signals(argv), cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True, env=env)
    assert proc.stdout is not None
    tail = bytearray()
    total = [0]

    def read() -> None:
        while chunk := proc.stdout.read1(_READ):  # type: ignore[union-attr]
            total[0] += len(chunk)
            tail.extend(chunk)
            if len(tail) > 2 * keep:
                del tail[:-keep]

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        proc.wait(timeout=timeout)
        returncode: int | None = proc.returncode
    except subprocess.TimeoutExpired:
        returncode = None
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group, even when its leader already exited
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    reader.join(_DRAIN_SECONDS)
    text = bytes(tail[-keep:]).decode("utf-8", errors="replace")
    return CappedRun(returncode, text.replace("\r\n", "\n").replace("\r", "\n"), total[0])
