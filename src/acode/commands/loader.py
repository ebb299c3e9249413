"""Find custom commands. Later sources override earlier ones of the same name:
extensions < user (~/.config/acode/commands) < project (.acode/commands)."""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from acode.errors import ConfigError
from acode.paths import ProjectPaths, user_config_dir

log = logging.getLogger("acode.commands")


@dataclass(frozen=True)
class CustomCommand:
    name: str  # without the leading slash: "agent:start"
    prompt: str
    description: str
    path: Path
    scope: str  # "project" | "user" | "extension:<name>"


def command_name(path: Path, root: Path) -> str:
    return ":".join(path.relative_to(root).with_suffix("").parts)


def read_command(path: Path, root: Path, scope: str) -> CustomCommand:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError("ACODE-CMD-001", f"the command file {path} is not valid TOML: {exc}") from None
    prompt = data.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise ConfigError(
            "ACODE-CMD-002",
            f"the command file {path} has no 'prompt' string",
            hint='add a line such as: prompt = "Explain {{args}}"',
        )
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ConfigError("ACODE-CMD-003", f"'description' in {path} must be a string")
    name = command_name(path, root)
    return CustomCommand(name, prompt, description or f"Custom command from {path.name}", path, scope)


def command_sources(
    project_root: Path | None, extension_dirs: Sequence[tuple[Path, str]] = ()
) -> list[tuple[Path, str]]:
    sources = [(folder, f"extension:{name}") for folder, name in extension_dirs]
    sources.append((user_config_dir() / "commands", "user"))
    if project_root is not None:
        sources.append((ProjectPaths(project_root).commands_dir, "project"))
    return sources


def load_commands(
    project_root: Path | None,
    extension_dirs: Sequence[tuple[Path, str]] = (),
    *,
    problems: list[str] | None = None,
) -> dict[str, CustomCommand]:
    """Every custom command by name; an invalid file is reported (in ``problems``) and skipped."""
    commands: dict[str, CustomCommand] = {}
    for root, scope in command_sources(project_root, extension_dirs):
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*.toml")):
            try:
                command = read_command(path, root, scope)
            except ConfigError as exc:
                log.warning("%s", exc)
                if problems is not None:
                    problems.append(str(exc))
                continue
            commands[command.name] = command
    return commands
