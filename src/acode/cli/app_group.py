"""The top-level command group: the flag habits people bring from Gemini CLI that click does not offer by
itself. ``-r``/``--resume`` without a value resumes the latest session; ``-v``/``--verbose``/``--debug`` is
accepted after any sub-command too (``acode review -v``), not only before it; yes/no flags show no ``<bool>``
type in help (they take no value)."""

from __future__ import annotations

from functools import cache
from typing import Any

import typer
from typer.core import TyperGroup, TyperOption

LATEST_SESSION = "latest"
RESUME_FLAGS = ("-r", "--resume")
VERBOSE_FLAGS = ("-v", "--verbose", "--debug")
VERBOSE_HELP = "Log debug details to stderr."


def debug_logging(verbose: bool) -> None:
    if verbose:
        from acode.cli.terminal_safety import log_to_stderr

        log_to_stderr(True)


class AcodeGroup(TyperGroup):
    def format_help(self, ctx: Any, formatter: Any) -> None:
        from acode.cli.help_imports import import_help_renderer

        import_help_renderer()
        return super().format_help(ctx, formatter)

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        return super().parse_args(ctx, self._resume_defaults_to_latest(args))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None:
            _accept_verbose(command)
        return command

    def _resume_defaults_to_latest(self, args: list[str]) -> list[str]:
        """``-r`` followed by nothing or by another option means ``-r latest`` (click options need their
        value). Only this command's own options are looked at: the scan stops at the first word that is
        neither an option nor an option's value (the sub-command or a positional argument)."""
        takes_value = {
            flag
            for param in self.params
            if isinstance(param, TyperOption) and not param.is_flag
            for flag in param.opts
        }
        args = list(args)
        index = 0
        while index < len(args):
            word = args[index]
            if word == "--" or not word.startswith("-"):
                break
            if word in RESUME_FLAGS:
                following = args[index + 1] if index + 1 < len(args) else None
                if following is None or following.startswith("-"):
                    args.insert(index + 1, LATEST_SESSION)
                index += 2
            elif word in takes_value:
                index += 2
            else:
                index += 1
        return args


def _accept_verbose(command: Any) -> None:
    """Give ``command`` (and the sub-commands of a group) the ``-v``/``--verbose`` flag if it has none."""
    if not any(set(VERBOSE_FLAGS) & set(getattr(param, "opts", ())) for param in command.params):
        command.params.append(_verbose_option())
    for sub in getattr(command, "commands", {}).values():
        _accept_verbose(sub)


@cache
def _verbose_option() -> Any:
    """The flag as typer builds it (public API only): a probe command's one option, not passed to the
    commands it is added to (expose_value=False), acting through its callback."""
    probe = typer.Typer()

    @probe.command()
    def _probe(
        verbose: bool = typer.Option(
            False, *VERBOSE_FLAGS, help=VERBOSE_HELP, is_eager=True, expose_value=False,
            callback=debug_logging,
        ),
    ) -> None:
        pass

    return typer.main.get_command(probe).params[0]


def hide_flag_types() -> None:
    """typer's rich help prints ``<bool>`` after yes/no flags as if they took a value; a flag shows no
    type (as click's plain help does). Patched once per process."""
    original = TyperOption.display_type_rich
    if getattr(original, "hides_flag_types", False):
        return

    def display_type_rich(self: TyperOption, ctx: Any) -> str | None:
        if self.is_flag and self.metavar is None:
            return None
        return original(self, ctx)

    display_type_rich.hides_flag_types = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
