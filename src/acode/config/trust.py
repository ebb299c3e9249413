"""Trusted folders: may a project's own files make acode run commands on this machine?

A cloned repository is somebody else's code. Its ``.acode/config.yml`` can name hooks, MCP servers, a
test command, verify commands, shell prefixes that run without asking or ``approval_mode: yolo``, switch
a protection off (``reviewer.test_sandbox: false``, ``sandbox: off``, ``sandbox.network: true``), or
send your prompts, your code and one of your environment variables to a server elsewhere
(``model.allowed_hosts``, a ``base_url`` in ``model`` or ``routing`` that is not a loopback address,
``model.api_key_env``); its ``.acode/commands`` can hold ``!{...}`` shell injections and its
``.acode/extensions`` MCP servers. None of that is used until the person decides the folder is trusted:

- the decision is stored per folder in ``<user config dir>/trusted_folders.json``; a rule covers the
  folder and everything under it, and the nearest rule wins (``acode trust``, or the question asked once
  in a terminal);
- in an untrusted or undecided folder the project layer is loaded *without* those keys (the rest of the
  settings still apply) and the CLI says what was left out and how to trust the folder;
- ``--trust`` trusts the folder for one command without storing anything.
User settings (``~/.config/acode/config.yml``), ``ACODE_*`` variables and flags are the user's own and
are never withheld.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acode.errors import ConfigError
from acode.paths import ProjectPaths, user_config_dir

TRUST_FILE = "trusted_folders.json"
Decision = Literal["trust", "distrust"]

# Keys of the project layer that run commands or skip the questions before one.
_RUNS_COMMANDS = ("hooks", "mcp_servers", "reviewer.test_command", "reviewer.run_tests",
                  "agent.fix.test_command", "pipeline.verify_commands", "pipeline.check_command_prefixes",
                  "agent.rules.allow_shell", "agent.rules.allow_tools")
_MODES = {"agent.approval_mode": ("yolo", "auto_edit"), "pipeline.approval_mode": ("yolo",)}
# values of those keys that only run less than the defaults: kept from any project
_RUNS_LESS = {"reviewer.run_tests": (False, "auto")}
# protections and the one value an untrusted project may give them (any other, however spelled -
# ``false``, ``"no"``, ``0`` - could switch them off: only a trusted project may weaken one)
_PROTECTIONS = {"reviewer.test_sandbox": True}


@dataclass
class ProjectTrust:
    """How the project's own settings were treated when these settings were loaded."""

    root: str | None = None
    trusted: bool = True
    reason: str = "no project"  # "trusted (rule for <folder>)", "not trusted (no decision yet)", ...
    withheld: list[str] = field(default_factory=list)  # what the project wanted to run and did not get

    def as_dict(self) -> dict[str, Any]:
        return {"root": self.root, "trusted": self.trusted, "reason": self.reason, "withheld": self.withheld}


class TrustStore:
    """The trust rules, ``{folder: "trust" | "distrust"}``, in the user's config folder."""

    def __init__(self, path: Path | None = None):
        self.path = path or user_config_dir() / TRUST_FILE

    def rules(self) -> dict[str, Decision]:
        if not self.path.is_file():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError("ACODE-TRUST-002", f"cannot read the trusted folders file {self.path}: {exc}",
                              hint="fix or delete it (acode then asks again)") from None
        folders = data.get("folders") if isinstance(data, dict) else None
        if not isinstance(folders, dict):
            raise ConfigError("ACODE-TRUST-002", f"{self.path} has no 'folders' mapping",
                              hint="fix or delete it (acode then asks again)")
        return {str(k): v for k, v in folders.items() if v in ("trust", "distrust")}

    def decision(self, folder: Path) -> tuple[Decision, str] | None:
        """The nearest rule for ``folder`` (its own, else its closest parent's): (decision, rule folder)."""
        rules = self.rules()
        here = _canonical(folder)
        for candidate in (here, *here.parents):
            if str(candidate) in rules:
                return rules[str(candidate)], str(candidate)
        return None

    def set(self, folder: Path, decision: Decision) -> str:
        rules = self.rules()
        key = str(_canonical(folder))
        rules[key] = decision
        self._write(rules)
        return key

    def forget(self, folder: Path) -> bool:
        rules = self.rules()
        key = str(_canonical(folder))
        if key not in rules:
            return False
        del rules[key]
        self._write(rules)
        return True

    def _write(self, rules: Mapping[str, str]) -> None:
        from acode.fsutil import atomic_write_json

        atomic_write_json(self.path, {"folders": dict(sorted(rules.items()))})


def _canonical(folder: Path) -> Path:
    return Path(os.path.realpath(Path(folder).expanduser()))


def decide(root: Path, flag: bool | None = None, store: TrustStore | None = None) -> tuple[bool, str]:
    """Is ``root`` trusted, and why. ``flag``: True for ``--trust`` (this run only)."""
    if flag:
        return True, "trusted for this command (--trust)"
    rule = (store or TrustStore()).decision(root)
    if rule is None:
        return False, "not trusted (no decision yet)"
    decision, folder = rule
    if decision == "trust":
        return True, f"trusted (rule for {folder})"
    return False, f"not trusted (rule for {folder})"


def withhold(layer: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The project layer without what runs commands (see the module doc), and what was left out."""
    kept = json.loads(json.dumps(layer, default=str))  # a deep copy of plain YAML data
    removed: list[str] = []
    for dotted in _RUNS_COMMANDS:
        value = _pop(kept, dotted)
        if any(value == v and type(value) is type(v) for v in _RUNS_LESS.get(dotted, ())):  # 0 is not False
            _put(kept, dotted, value)
        elif value not in (None, {}, [], False):
            removed.extend(_describe(dotted, value))
    for dotted, modes in _MODES.items():
        parent, _, leaf = dotted.rpartition(".")
        node = _get(kept, parent)
        if isinstance(node, dict) and node.get(leaf) in modes:
            removed.append(f"{dotted}: {node.pop(leaf)}")
    for dotted, safe in _PROTECTIONS.items():
        value = _pop(kept, dotted)
        if value is safe:
            _put(kept, dotted, value)
        elif value is not None:
            removed.append(f"{dotted}: {value}")
    from acode.config.sandbox import withhold_weakening

    removed += withhold_weakening(kept)
    removed += _withhold_reach(kept)
    return kept, removed


def _withhold_reach(kept: dict[str, Any]) -> list[str]:
    """Where prompts (and a key) may go: the hosts the project would allow, the environment variable
    sent as the key, and every ``base_url`` (``model.``, ``routing.*``) that is not a loopback address."""
    from acode.netpolicy import is_loopback_url

    removed: list[str] = []
    model = kept.get("model")
    if isinstance(model, dict):
        for key in ("allowed_hosts", "api_key_env"):
            if model.get(key) not in (None, [], ""):
                removed.append(f"model.{key}: {model.pop(key)}")
            model.pop(key, None)
    for dotted, node in _nodes_with(kept, "base_url"):
        if not is_loopback_url(str(node["base_url"])):
            removed.append(f"{dotted}.base_url: {node.pop('base_url')}")
    return removed


def _nodes_with(data: Any, key: str, prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every mapping in ``data`` (depth first) that holds ``key``, with its dotted place."""
    if not isinstance(data, dict):
        return []
    found = [(prefix, data)] if key in data and prefix else []
    for name, value in data.items():
        found += _nodes_with(value, key, f"{prefix}.{name}" if prefix else str(name))
    return found


def project_commands(root: Path, layer: Mapping[str, Any]) -> list[str]:
    """Everything the project's own files would run: its config keys, custom commands with ``!{...}`` and
    MCP servers of its extensions. Empty: there is nothing to decide."""
    found = withhold(layer)[1]
    paths = ProjectPaths(root)
    if paths.commands_dir.is_dir():
        for path in sorted(paths.commands_dir.rglob("*.toml")):
            try:
                if "!{" in path.read_text(encoding="utf-8", errors="replace"):
                    found.append(f"custom command {path.relative_to(root)}: runs !{{...}} shell commands")
            except OSError:
                continue
    from acode.extensions.loader import discover_extensions

    for ext in discover_extensions(root).values():
        if ext.scope == "project":
            servers = ext.manifest.mcp_servers.items()
            found += [f"extension {ext.name}: MCP server {name} ({s.command})" for name, s in servers]
    return found


def _get(data: Any, dotted: str) -> Any:
    node = data
    for part in dotted.split(".") if dotted else []:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def _pop(data: dict[str, Any], dotted: str) -> Any:
    parent, _, leaf = dotted.rpartition(".")
    node = _get(data, parent)
    return node.pop(leaf, None) if isinstance(node, dict) else None


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    parent, _, leaf = dotted.rpartition(".")
    node = data
    for part in parent.split(".") if parent else []:
        node = node.setdefault(part, {})
    node[leaf] = value


def _describe(dotted: str, value: Any) -> list[str]:
    if dotted == "hooks" and isinstance(value, dict):
        out = []
        from acode.config.hooks import nested_hook_entries

        for event, matchers in value.items():
            matchers = nested_hook_entries(matchers)
            for matcher in matchers if isinstance(matchers, list) else [matchers]:
                hooks = matcher.get("hooks", []) if isinstance(matcher, dict) else []
                out += [f"hooks.{event}: {h.get('command')}" for h in hooks if isinstance(h, dict)]
        return out
    if dotted == "mcp_servers" and isinstance(value, dict):
        return [
            f"mcp_servers.{name}: {s.get('command') if isinstance(s, dict) else s}"
            for name, s in value.items()
        ]
    return [f"{dotted}: {value}"]
