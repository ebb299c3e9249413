"""Settings: pydantic models per section, loaded in layers (defaults < user < project < env < flags).

The models are imported on first use (``acode.config.Settings``), not with the package: a command that
reads no settings (``acode --help``, ``acode config path``) does not pay for pydantic."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from acode.config.loader import load_settings
    from acode.config.settings import Settings

__all__ = ["Settings", "load_settings"]


def __getattr__(name: str) -> Any:
    if name == "Settings":
        from acode.config.settings import Settings

        return Settings
    if name == "load_settings":
        from acode.config.loader import load_settings

        return load_settings
    raise AttributeError(f"module 'acode.config' has no attribute {name!r}")
