"""Workspace confinement: every path a model or user gives a tool is resolved here, and anything that
would land outside the workspace root (``..`` escapes, absolute paths elsewhere, symlinks leading out)
is refused with a ToolError the model can act on."""

from __future__ import annotations

import os
from pathlib import Path

from acode.shown import undecodable_unescaped
from acode.tools.base import ToolContext, ToolError


class PathRefused(ToolError):
    """A path outside the workspace: refused whatever the model tries next."""

    refused = True


def workspace_root(ctx: ToolContext) -> Path:
    return Path(os.path.realpath(ctx.workspace))


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _allowed_extras(ctx: ToolContext) -> list[str]:
    return [os.path.realpath(extra) for extra in ctx.extra_writable]


def resolve_path(ctx: ToolContext, raw: str, *, what: str = "file_path") -> Path:
    """The real (symlink-free) absolute path for ``raw``, guaranteed inside the workspace or equal to
    (or inside) one of ``ctx.extra_writable``. Relative paths are taken from the workspace root."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError(f"{what} is empty; give a path relative to the workspace root.")
    text = raw.strip()
    if "\x00" in text:
        raise ToolError(f"{what} contains a NUL character; give a plain path.")
    _check_length(text, what)
    root = str(workspace_root(ctx))
    given = text if os.path.isabs(text) else os.path.join(root, text)
    if "\\x" in text and not os.path.lexists(given):  # a name shown with \xNN for bytes that are not UTF-8
        raw_name = os.path.join(root, undecodable_unescaped(text))
        given = raw_name if os.path.lexists(raw_name) else given
    lexical = os.path.normpath(given)
    try:
        real = os.path.realpath(given)
    except (OSError, RuntimeError, ValueError) as exc:
        raise ToolError(f"Cannot resolve {what} '{raw}': {exc}") from exc
    if os.path.realpath(real) != real:  # a symlink loop stopped resolution half way (`loop/../link`)
        raise ToolError(f"Cannot resolve {what} '{raw}': it goes through a symlink loop.")
    if _inside(real, root) or any(_inside(real, extra) for extra in _allowed_extras(ctx)):
        return Path(real)
    if _inside(lexical, root):
        raise PathRefused(
            f"{what} '{raw}' goes through a symlink that leads outside the workspace ({real}); "
            f"only paths inside {root} are allowed."
        )
    raise PathRefused(
        f"{what} '{raw}' is outside the workspace; only paths inside {root} are allowed "
        "(use a path relative to the workspace root, without '..' leading out of it)."
    )


NAME_MAX = 255  # bytes in one file or folder name (Linux, macOS)
PATH_MAX = 4096


def _check_length(text: str, what: str) -> None:
    """Names the file system cannot hold are the model's mistake to fix, not an OSError later."""
    if len(text.encode("utf-8", "surrogateescape")) > PATH_MAX:
        raise ToolError(f"{what} is {len(text)} characters long; paths may have at most {PATH_MAX} bytes.")
    for part in text.replace("\\", "/").split("/"):
        size = len(part.encode("utf-8", "surrogateescape"))
        if size > NAME_MAX:
            raise ToolError(
                f"{what} has a name of {size} bytes ('{part[:40]}...'); a file or folder name may have at "
                "most "
                f"{NAME_MAX} bytes. Use a shorter name."
            )


def resolve_shown(ctx: ToolContext, raw: str, *, what: str = "file_path") -> tuple[Path, str]:
    """``resolve_path`` plus how that path is shown to the model."""
    path = resolve_path(ctx, raw, what=what)
    return path, display_path(ctx, path)


def display_path(ctx: ToolContext, path: Path) -> str:
    """How a path is shown to the model: relative to the workspace (POSIX style), or absolute when
    it is one of the extra writable files outside it."""
    root = workspace_root(ctx)
    try:
        rel = Path(path).relative_to(root)
    except ValueError:
        return str(path)
    return rel.as_posix() or "."


def relative_inside(ctx: ToolContext, path: Path) -> str:
    """The workspace-relative POSIX path of ``path``; an error for extra writable files outside it,
    which tools that walk folders do not look into."""
    shown = display_path(ctx, path)
    if os.path.isabs(shown):
        raise ToolError(
            f"{shown} is outside the workspace; only folders inside it can be listed or searched."
        )
    return shown


def record_changed_file(ctx: ToolContext, path: Path) -> None:
    """Remember an edited file for the reviewer (``ctx.state['files_changed']``, no duplicates)."""
    changed = ctx.state.setdefault("files_changed", [])
    shown = display_path(ctx, path)
    if shown not in changed:
        changed.append(shown)


PROTECTED_DIRS = (".git", ".acode")  # repository config and hooks; acode's own config, hooks and commands


def protected_part(root: Path, path: Path) -> str | None:
    """The protected folder (``.git`` or ``.acode``, at any depth) that ``path`` lies in, else None.
    Both hold files that make programs run: git hooks and ``core.fsmonitor``, acode's hooks, custom
    commands and approval mode. ``root`` and ``path`` are real paths."""
    try:
        parts = Path(path).relative_to(root).parts
    except ValueError:
        return None
    return next((part for part in parts if part in PROTECTED_DIRS), None)


def protected_edit(ctx: ToolContext, raw: object) -> str | None:
    """Why an edit tool may not write ``raw`` (a path inside ``.git/`` or ``.acode/`` that is not one
    of the session's extra writable files), or None."""
    if not isinstance(raw, str) or not raw.strip():
        return None
    try:
        path = resolve_path(ctx, raw)
    except ToolError:
        return None  # the tool itself refuses it with the usual message
    if any(_inside(str(path), extra) for extra in _allowed_extras(ctx)):
        return None
    part = protected_part(workspace_root(ctx), path)
    if part is None:
        return None
    return (
        f"denied: {raw} is inside {part}/, which holds configuration and hooks that run programs; "
        "only the user edits it (or yolo mode)"
    )
