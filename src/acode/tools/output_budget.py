"""Cutting long tool output to a character budget: keep about the first fifth and the last four fifths
(the end of a log usually says what went wrong), with a marker saying what was left out and where the
full text was saved."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

HEAD_SHARE = 0.2


def _snap_to_newline(text: str, at: int, *, forward: bool, slack: int) -> int:
    """Move a cut point to a nearby line boundary so lines are not split, if one is close."""
    if forward:
        found = text.find("\n", at, at + slack)
        return found + 1 if found != -1 else at
    found = text.rfind("\n", max(0, at - slack), at)
    return found + 1 if found != -1 else at


def cut_head_tail(text: str, budget: int, *, saved_to: Path | str | None = None) -> str:
    """``text`` if it fits in ``budget`` characters, else its head and tail joined by a marker."""
    if budget <= 0 or len(text) <= budget:
        return text
    head_len = int(budget * HEAD_SHARE)
    tail_len = budget - head_len
    slack = max(1, budget // 20)
    head_end = _snap_to_newline(text, head_len, forward=False, slack=slack) if head_len else 0
    tail_start = _snap_to_newline(text, len(text) - tail_len, forward=True, slack=slack)
    omitted = tail_start - head_end
    where = f"; full output saved to {saved_to}" if saved_to else ""
    marker = f"\n... [{omitted} characters omitted{where}] ...\n"
    return text[:head_end] + marker + text[tail_start:]


def new_output_path(outputs_dir: Path, prefix: str) -> Path:
    outputs_dir.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return outputs_dir / f"{prefix}-{stamp}-{uuid.uuid4().hex[:6]}.txt"


def fit_to_budget(text: str, budget: int, outputs_dir: Path | None, prefix: str) -> tuple[str, Path | None]:
    """Cut ``text`` to ``budget``; when cut and ``outputs_dir`` is set, the full text is saved there first
    and its path named in the marker."""
    if budget <= 0 or len(text) <= budget:
        return text, None
    saved = None
    if outputs_dir is not None:
        saved = new_output_path(outputs_dir, prefix)
        save_redacted(saved, text)
    return cut_head_tail(text, budget, saved_to=saved), saved


def save_redacted(path: Path, text: str) -> None:
    """Write a full output to ``path`` with its secrets hidden (acode.secrets), as everything acode keeps."""
    from acode.fsutil import atomic_write_bytes
    from acode.secrets import redact

    atomic_write_bytes(path, redact(text).encode("utf-8", errors="surrogateescape"))


def redact_saved(path: Path) -> None:
    """Rewrite an output file written as it came (a command's spill file) with its secrets hidden."""
    save_redacted(path, path.read_bytes().decode("utf-8", errors="surrogateescape"))
