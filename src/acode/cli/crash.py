"""What a person sees when acode itself fails (a bug, not a problem with their input or project): one
message naming the error and where its details were written, exit code 70 (EX_SOFTWARE), never a
screenful of traceback. ``ACODE_TRACEBACK=1`` prints the traceback too (for a bug report)."""

from __future__ import annotations

import os
import time
import traceback
from pathlib import Path

from rich.console import Console

from acode.fsutil import open_private
from acode.paths import user_cache_dir

EXIT_CODE = 70  # sysexits.h EX_SOFTWARE: an internal software error
SHOW_TRACEBACK = "ACODE_TRACEBACK"


def report_crash(console: Console, exc: BaseException) -> int:
    """Write the traceback to a crash file, print one line about it, and return the exit code."""
    from acode.cli.common import print_problem
    from acode.secrets import redact

    details = redact("".join(traceback.format_exception(exc)))
    saved = _save(details)
    where = f"the details are in {saved}" if saved else "its details could not be saved"
    summary = redact(f"{type(exc).__name__}: {exc}".strip().splitlines()[0])[:300]
    print_problem(console, "error", f"acode stopped on an internal error ({summary}). This is a bug in "
                                    f"acode, not in your project or input; {where}.")
    if os.environ.get(SHOW_TRACEBACK) == "1":
        console.print(details, markup=False, highlight=False, soft_wrap=True)
    else:
        console.print(f"Set {SHOW_TRACEBACK}=1 to print the traceback here.", markup=False, highlight=False)
    return EXIT_CODE


def _save(details: str) -> Path | None:
    folder = user_cache_dir() / "crashes"
    path = folder / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with open_private(path, "w") as out:
            out.write(details)
    except OSError:
        return None
    return path
