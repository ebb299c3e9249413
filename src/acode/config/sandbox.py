"""Settings of the sandbox the commands acode runs for a model run in (acode.command_sandbox,
docs/guide/tools.md).

``sandbox: workspace-write`` (the default), ``read-only`` or ``off``; the short form is the mode, the long
form a mapping (``sandbox: {mode: read-only, network: true}``). Weakening it (``off``, ``network: true``)
is for the user's own settings only: an untrusted project's config cannot (config.trust)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SandboxMode = Literal["workspace-write", "read-only", "off"]


class SandboxSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    mode: SandboxMode = Field(
        "workspace-write",
        description="where the model's commands run: workspace-write (bubblewrap: the workspace writable but "
        ".git/config, .git/hooks and .acode, the rest read-only, no network, credentials and tokens hidden), "
        "read-only (nothing writable but a private /tmp), off (as you); also --sandbox",
    )
    network: bool = Field(False, description="let sandboxed commands use the network (trusted settings only)")

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        """``sandbox: read-only`` is ``sandbox: {mode: read-only}``; ``sandbox: false`` is ``off``."""
        if isinstance(value, str):
            return {"mode": value}
        if value is False:
            return {"mode": "off"}
        return value


def expand_short_form(layer: dict[str, Any]) -> dict[str, Any]:
    """One settings layer with ``sandbox: <mode>`` written as ``sandbox: {mode: <mode>}``, so a later
    layer's short form changes the mode without dropping an earlier layer's ``network``."""
    value = layer.get("sandbox")
    if isinstance(value, str) or value is False:
        return {**layer, "sandbox": SandboxSettings._short_form(value)}
    return layer


# what an untrusted project may set: only the modes that confine at least as much as the default
SAFE_PROJECT_MODES = ("workspace-write", "read-only")


def withhold_weakening(layer: dict[str, Any]) -> list[str]:
    """Remove from a project layer (in place) what would weaken the sandbox: any mode but the safe ones,
    any ``network`` but false; what was removed, for the notice."""
    node = expand_short_form(layer).get("sandbox")
    if node is None:
        return []
    if not isinstance(node, dict):
        layer.pop("sandbox")
        return [f"sandbox: {node}"]
    node = dict(node)
    removed = []
    if "mode" in node and node["mode"] not in SAFE_PROJECT_MODES:
        removed.append(f"sandbox.mode: {node.pop('mode')}")
    if "network" in node and node["network"] is not False:
        removed.append(f"sandbox.network: {node.pop('network')}")
    layer["sandbox"] = node
    return removed
