"""Many blobs read through one ``git cat-file --batch`` as a stream: each blob's content is handed over
in chunks and what the reader does not take is skipped through, so a large blob is never held whole and
20,000 files are one git process, not 20,000."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from acode.gitcmd import GitError, git_env, safe_git

CHUNK = 1 << 20


def each_blob(root: Path, oids: list[str], use: Callable[[str, Iterator[bytes]], None],
              timeout: float = 300.0) -> None:
    """``use(oid, chunks)`` for each blob of ``oids`` that git has (a missing one is left out), in order."""
    wanted = list(dict.fromkeys(oids))
    if not wanted:
        return
    try:
        proc = subprocess.Popen(safe_git(root, "cat-file", "--batch"), cwd=root, env=git_env(),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except FileNotFoundError:
        raise GitError("ACODE-GIT-001", "git is not installed (no 'git' on PATH)",
                       hint="install git and try again") from None
    assert proc.stdin is not None and proc.stdout is not None
    feed = "".join(f"{oid}\n" for oid in wanted).encode()
    threading.Thread(target=_write_and_close, args=(proc.stdin, feed), daemon=True).start()
    fired = threading.Event()
    limit = threading.Timer(timeout, lambda: (fired.set(), proc.kill()))
    limit.start()
    line = b""
    try:
        for oid in wanted:
            line = proc.stdout.readline()
            if not line:
                break  # git ended: said below
            header = line.split()
            if len(header) != 3 or not header[2].isdigit():  # "<name> missing" (or ambiguous)
                continue
            chunks = _chunks(proc.stdout, int(header[2]))
            use(oid, chunks)
            for _ in chunks:  # the rest of the blob, not kept
                pass
            proc.stdout.read(1)  # the newline after the content
    finally:
        limit.cancel()
        proc.stdout.close()
        proc.kill()
        proc.wait()
    if fired.is_set():
        raise GitError("ACODE-GIT-007", f"'git cat-file --batch' took longer than {timeout:g} s in {root}")
    if not line:
        raise GitError("ACODE-GIT-006", f"'git cat-file --batch' ended before the last blob in {root}")


def blob_heads(root: Path, oids: list[str], size: int, timeout: float = 300.0) -> dict[str, bytes]:
    """The first ``size`` bytes of each blob in ``oids``."""
    heads: dict[str, bytes] = {}

    def keep_head(oid: str, chunks: Iterator[bytes]) -> None:
        head = b""
        for chunk in chunks:
            head += chunk
            if len(head) >= size:
                break
        heads[oid] = head[:size]

    each_blob(root, oids, keep_head, timeout)
    return heads


def _chunks(stream: IO[bytes], size: int) -> Iterator[bytes]:
    left = size
    while left > 0:
        chunk = stream.read(min(left, CHUNK))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


def _write_and_close(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # git ended early (killed on time-out): the reader sees it
        pass
