"""``docs/reference/cli.md``: every command, sub-command and flag with its help, walked from the typer app's
click command tree (``typer.main.get_command``), hidden ones left out as ``--help`` leaves them out."""

from __future__ import annotations

import re
from enum import Enum
from typing import Any

import typer

from acode.docs.config_reference import type_name
from acode.docs.markdown import page, table

INTRO = (
    "Every `acode` command, sub-command and flag, as `acode <command> --help` shows them. "
    "`-v`/`--verbose` (debug details on stderr) is accepted by every command."
)
_WORDS = {"str": "text", "Path": "path", "int": "number", "float": "number"}
_MARKUP = re.compile(r"\[/?[a-z ]+\]")  # rich markup such as [bold] in help texts


def commands(app: typer.Typer) -> list[tuple[str, Any]]:
    """(the command's full name, its click command), the root first, sub-commands in name order."""
    found: list[tuple[str, Any]] = []

    def walk(name: str, command: Any) -> None:
        if getattr(command, "hidden", False):
            return
        found.append((name, command))
        for sub_name in sorted(getattr(command, "commands", {}) or {}):
            walk(f"{name} {sub_name}", command.commands[sub_name])

    walk("acode", typer.main.get_command(app))
    return found


def flags(command: Any) -> list[str]:
    return [" / ".join(_names(param)) for param in _visible(command)]


def render(app: typer.Typer) -> str:
    body: list[str] = []
    for name, command in commands(app):
        body += [f"## `{name}`", ""]
        help_text = _plain(command.help or command.short_help or "")
        if help_text:
            body += [help_text, ""]
        rows = [[f"`{' / '.join(_names(param))}`", _kind(param), _default(param), _plain(_help(param))]
                for param in _visible(command)]
        if rows:
            body += [*table(["flag or argument", "takes", "default", "meaning"], rows), ""]
    return page("Command-line reference", INTRO, body)


def _visible(command: Any) -> list[Any]:
    return [param for param in command.params
            if not getattr(param, "hidden", False) and not _is_verbose(param)]


def _is_verbose(param: Any) -> bool:
    from acode.cli.app_group import VERBOSE_FLAGS

    return set(VERBOSE_FLAGS) <= set(getattr(param, "opts", ()))


def _names(param: Any) -> list[str]:
    if param.param_type_name == "argument":
        return [(param.metavar or param.name).upper()]
    return [*param.opts, *param.secondary_opts]


def _kind(param: Any) -> str:
    if getattr(param, "is_flag", False):
        return "yes/no"
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        text = " | ".join(str(member.value) for member in annotation)
    else:
        text = type_name(annotation) if annotation is not None else "text"
    if getattr(param, "multiple", False):
        text = f"{_WORDS.get(text.removeprefix('list[').removesuffix(']'), text)}, repeatable"
    return _WORDS.get(text, text)


def _default(param: Any) -> str:
    value = param.default
    if callable(value) or value is None or value == () or (getattr(param, "is_flag", False) and not value):
        return ""
    return str(value)


def _help(param: Any) -> str:
    return getattr(param, "help", None) or ""


def _plain(text: str) -> str:
    paragraphs = [" ".join(part.split()) for part in _MARKUP.sub("", text).split("\n\n")]
    return "\n\n".join(part for part in paragraphs if part)
