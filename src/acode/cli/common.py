"""Helpers every command shares: consoles, settings from flags, JSON output."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from acode.cli.terminal_safety import ShowControls
from acode.paths import find_project_root

if TYPE_CHECKING:  # the settings models cost ~0.15 s to import: only commands that read settings pay it
    from acode.config import Settings

# To a pipe or a file rich would wrap every line at 80 columns; there, text is not wrapped at all
# (soft_wrap) and tables, panels and rules get room. COLUMNS, when set, still decides.
PIPE_WIDTH = 400


def make_console(*, stderr: bool = False) -> Console:
    """A console on stdout or stderr on which no printed text acts as a terminal control sequence."""
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty or os.environ.get("COLUMNS"):
        made = Console(stderr=stderr, highlight=False)
    else:
        made = Console(stderr=stderr, highlight=False, width=PIPE_WIDTH, soft_wrap=True)
    made.push_render_hook(ShowControls())
    return made


console = make_console()
err_console = make_console(stderr=True)


def project_root(start: Path | None = None) -> Path:
    return find_project_root(start)


def settings_for(
    root: Path | None = None,
    *,
    trust: bool = False,
    notice: bool = True,
    project_text: str | None = None,
    project_source: str | None = None,
    **overrides: Any,
) -> Settings:
    """Settings in force for the project at ``root``; keyword overrides use dotted keys with ``__`` for
    dots (``model__backend="openai"``) and None means "flag not given". The first time a folder whose
    own files would run commands is used from a terminal, the person is asked whether to trust it
    (cli.trust_question); otherwise what an untrusted project wanted is left out, with a notice."""
    from acode.cli.trust_question import resolve_trust, trust_notice
    from acode.config import load_settings

    root = root or project_root()
    flat = {key.replace("__", "."): value for key, value in overrides.items()}
    trusted = resolve_trust(root, trust, ask_on=err_console if interactive() else None)
    settings = load_settings(
        root, overrides=flat, trust=trusted, project_text=project_text, project_source=project_source
    )
    if notice:
        trust_notice(settings, err_console)
    return settings


SANDBOX_HELP = ("Where the model's commands run: workspace-write (default: bubblewrap, the workspace "
                "writable, no network) | read-only | off (as you); the setting 'sandbox'.")


def say_sandbox(settings: Settings) -> None:
    """Where the sandbox was asked for and cannot run here: one line on stderr, once per process."""
    from acode.command_sandbox import command_sandbox, say_once

    say_once(command_sandbox(settings.sandbox), lambda line: err_console.print(line, markup=False,
                                                                               soft_wrap=True))


def model_overrides(model: str | None, backend: str | None) -> dict[str, Any]:
    """``--model`` takes a bundled model name, a server model name, or a path to a .gguf file."""
    out: dict[str, Any] = {"model__backend": backend}
    if model is not None:
        if model.endswith(".gguf") or Path(model).is_file():
            out["model__path"] = str(Path(model).expanduser().resolve())
        else:
            out["model__name"] = model
    return out


def print_problem(console: Console, label: str, message: object, style: str = "bold red") -> None:
    """``error <message>`` (or ``warning ...``): the label styled, the message printed as plain text, so
    brackets in it (``pip install -e '.[local]'``, ``[REDACTED]``) are never read as rich markup."""
    from rich.markup import escape

    console.print(f"[{style}]{label}[/] {escape(str(message))}", markup=True, highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Machine output goes to stdout alone, one JSON document, secrets redacted (acode.secrets)."""
    import json

    from acode.secrets import redact_data

    if hasattr(data, "model_dump"):
        data = data.model_dump(mode="json")
    data = redact_data(json.loads(json.dumps(data, default=str)))
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()
