"""Find extensions (project ones override user ones of the same name) and pick the enabled ones."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from acode.errors import AcodeError, UsageError
from acode.extensions.manifest import MANIFEST_NAME, Extension, read_manifest
from acode.paths import ProjectPaths, user_config_dir

log = logging.getLogger("acode.extensions")


def extension_dirs(project_root: Path | None) -> list[tuple[Path, str]]:
    dirs = [(user_config_dir() / "extensions", "user")]
    if project_root is not None:
        dirs.append((ProjectPaths(project_root).extensions_dir, "project"))
    return dirs


def _manifests(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    found = sorted(folder.glob("*.json"))
    found += sorted(p for p in folder.glob(f"*/{MANIFEST_NAME}"))
    return found


def discover_extensions(
    project_root: Path | None, *, problems: list[str] | None = None
) -> dict[str, Extension]:
    """Every installed extension by name. An invalid manifest is reported (in ``problems``) and skipped."""
    found: dict[str, Extension] = {}
    for folder, scope in extension_dirs(project_root):
        for path in _manifests(folder):
            try:
                ext = read_manifest(path, scope)
            except AcodeError as exc:
                log.warning("%s", exc)
                if problems is not None:
                    problems.append(str(exc))
                continue
            found[ext.name] = ext  # later scope (project) wins
    return found


def parse_selection(values: Sequence[str] | None) -> list[str] | None:
    """``-e a -e b,c`` -> ['a', 'b', 'c']; no flag -> None (all enabled)."""
    if not values:
        return None
    return [name.strip() for value in values for name in value.split(",") if name.strip()]


def select_extensions(available: dict[str, Extension], selection: Sequence[str] | None) -> list[Extension]:
    """None: all; ['none']: none; names: exactly those (an unknown name is a usage error)."""
    names = parse_selection(selection)
    if names is None:
        return list(available.values())
    if [n.lower() for n in names] == ["none"]:
        return []
    unknown = [n for n in names if n not in available]
    if unknown:
        known = ", ".join(sorted(available)) or "none installed"
        raise UsageError(
            "ACODE-EXT-002",
            f"unknown extension(s): {', '.join(unknown)}",
            hint=f"installed extensions: {known} (`acode extensions list`)",
        )
    return [available[n] for n in names]


def load_enabled_extensions(
    project_root: Path | None, selection: Sequence[str] | None = None
) -> list[Extension]:
    return select_extensions(discover_extensions(project_root), selection)


def extensions_context(extensions: Sequence[Extension]) -> str:
    """Context files of the enabled extensions, for the system prompt."""
    parts = []
    for ext in extensions:
        text = ext.context_text().strip()
        if text:
            parts.append(f"# Extension {ext.name} ({ext.manifest.context_file_name})\n{text}")
    return "\n\n".join(parts)


def excluded_tools(extensions: Sequence[Extension]) -> set[str]:
    return {name for ext in extensions for name in ext.manifest.exclude_tools}
