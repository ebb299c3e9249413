"""Settings: pydantic models per section, loaded in layers (defaults < user < project < env < flags)."""

from acode.config.loader import load_settings
from acode.config.settings import Settings

__all__ = ["Settings", "load_settings"]
