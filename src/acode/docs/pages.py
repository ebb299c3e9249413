"""The reference pages as text, and the check that the committed ones are what the code would generate."""

from __future__ import annotations

from pathlib import Path

import typer
from pydantic import BaseModel

from acode.docs import cli_reference, config_reference, error_reference

CONFIG_PAGE = "config.md"
CLI_PAGE = "cli.md"
ERRORS_PAGE = "exit-codes.md"


def default_sources() -> tuple[type[BaseModel], typer.Typer, Path]:
    import acode
    from acode.cli.main import app
    from acode.config.settings import Settings

    return Settings, app, Path(acode.__file__).parent


def generate(settings: type[BaseModel], app: typer.Typer, src: Path) -> dict[str, str]:
    return {
        CONFIG_PAGE: config_reference.render(settings),
        CLI_PAGE: cli_reference.render(app),
        ERRORS_PAGE: error_reference.render(src),
    }


def write(folder: Path, pages: dict[str, str]) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in pages.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def problems(folder: Path, settings: type[BaseModel], app: typer.Typer, src: Path) -> list[str]:
    """What is missing from or stale in the pages under ``folder``: each entry the code has and the page
    does not (a config key, a command, an error code) by name, each config key that says nothing about
    its meaning, then each page that differs at all."""
    found: list[str] = []
    expected = generate(settings, app, src)
    committed = {name: _read(folder / name) for name in expected}
    entries = {
        CONFIG_PAGE: ("config key", config_reference.keys(settings), "`{}`"),
        CLI_PAGE: ("command", [name for name, _ in cli_reference.commands(app)], "## `{}`"),
        ERRORS_PAGE: ("error code", sorted({use.code for use in error_reference.code_uses(src)}), "`{}`"),
    }
    for name, (what, names, shape) in entries.items():
        text = committed[name]
        if text is None:
            continue
        found += [f"{folder / name}: {what} {entry} has no reference entry"
                  for entry in names if shape.format(entry) not in text]
    found += [f"{settings.__name__}: config key {key.dotted} has no meaning: give its Field a description="
              for section in config_reference.sections(settings) for key in section.keys if not key.meaning]
    for name, text in expected.items():
        if committed[name] is None:
            found.append(f"{folder / name} is missing")
        elif committed[name] != text:
            found.append(f"{folder / name} is stale: it differs from what the code generates")
    return found


def _read(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.is_file() else None
