"""The extension manifest. An extension is either ``extensions/<name>.json`` or a folder
``extensions/<name>/`` holding ``acode-extension.json`` (plus its context file and ``commands/``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from acode.config.mcp import McpServerSettings
from acode.errors import ConfigError
from acode.fsutil import resolves_inside

log = logging.getLogger("acode.extensions")
MANIFEST_NAME = "acode-extension.json"


class ExtensionManifest(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")

    name: str = Field(pattern=r"^[A-Za-z0-9_.-]+$")
    version: str = "0.0.0"
    description: str = ""
    context_file_name: str | None = None
    prompt: str | None = None
    exclude_tools: list[str] = Field(default_factory=list)
    mcp_servers: dict[str, McpServerSettings] = Field(default_factory=dict)


class Extension(BaseModel):
    manifest: ExtensionManifest
    manifest_path: Path
    scope: str  # "project" | "user"

    @property
    def name(self) -> str:
        return self.manifest.name

    @property
    def folder(self) -> Path:
        return self.manifest_path.parent

    @property
    def commands_dir(self) -> Path | None:
        if self.manifest_path.name != MANIFEST_NAME:
            return None  # a single-file extension has no folder of its own
        folder = self.folder / "commands"
        return folder if folder.is_dir() else None

    def context_text(self) -> str:
        """The extension's context file (relative to its folder), or '' when it has none. A name that
        leads out of the folder (an absolute path, ``..``, a symlink) is refused, as ``@import`` is."""
        if not self.manifest.context_file_name:
            return ""
        path = self.folder / self.manifest.context_file_name
        if not resolves_inside(path, self.folder):
            log.warning(
                "extension %s: contextFileName %s leads outside %s; it is not read",
                self.name, self.manifest.context_file_name, self.folder,
            )
            return ""
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""


def read_manifest(path: Path, scope: str) -> Extension:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and "name" not in data and path.name != MANIFEST_NAME:
            data["name"] = path.stem
        return Extension(manifest=ExtensionManifest.model_validate(data), manifest_path=path, scope=scope)
    except (OSError, ValueError, ValidationError) as exc:
        first = str(exc).splitlines()[0][:300] if str(exc) else type(exc).__name__
        raise ConfigError(
            "ACODE-EXT-001",
            f"the extension manifest {path} is invalid: {first}",
            hint="it must be a JSON object with at least 'name' (see docs/guide/agents.md)",
        ) from None
