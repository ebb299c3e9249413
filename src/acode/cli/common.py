"""Helpers every command shares: consoles, settings from flags, JSON output."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from acode.config import Settings, load_settings
from acode.paths import find_project_root

# To a pipe or a file rich would wrap every line at 80 columns; there, text is not wrapped at all
# (soft_wrap) and tables, panels and rules get room. COLUMNS, when set, still decides.
PIPE_WIDTH = 400


def make_console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty or os.environ.get("COLUMNS"):
        return Console(stderr=stderr, highlight=False)
    return Console(stderr=stderr, highlight=False, width=PIPE_WIDTH, soft_wrap=True)


console = make_console()
err_console = make_console(stderr=True)


def project_root(start: Path | None = None) -> Path:
    return find_project_root(start)


def settings_for(root: Path | None = None, **overrides: Any) -> Settings:
    """Settings in force for the project at ``root``; keyword overrides use dotted keys with ``__`` for
    dots (``model__backend="openai"``) and None means "flag not given"."""
    flat = {key.replace("__", "."): value for key, value in overrides.items()}
    return load_settings(root or project_root(), overrides=flat)


def model_overrides(model: str | None, backend: str | None) -> dict[str, Any]:
    """``--model`` takes a bundled model name, a server model name, or a path to a .gguf file."""
    out: dict[str, Any] = {"model__backend": backend}
    if model is not None:
        if model.endswith(".gguf") or Path(model).is_file():
            out["model__path"] = str(Path(model).expanduser().resolve())
        else:
            out["model__name"] = model
    return out


def print_json(data: Any) -> None:
    """Machine output goes to stdout alone, one JSON document."""
    if hasattr(data, "model_dump"):
        data = data.model_dump(mode="json")
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
