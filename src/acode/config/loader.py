"""Layered loading with provenance, so a bad value is reported with the file (or variable) it came from."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from acode.config import yaml_text
from acode.config.sandbox import expand_short_form
from acode.config.settings import Settings
from acode.config.trust import ProjectTrust, decide, withhold
from acode.errors import ConfigError
from acode.paths import ENV_PREFIX, ProjectPaths, user_config_dir


def load_settings(
    project_root: Path | None = None,
    *,
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    trust: bool | None = None,
    project_text: str | None = None,
    project_source: str | None = None,
) -> Settings:
    """Built-in defaults < ~/.config/acode/config.yml < <project>/.acode/config.yml < ACODE_* < flags.

    ``overrides`` uses dotted keys (``{"model.backend": "openai"}``); None values are ignored so CLI
    flags that were not given do not override anything. The project layer keeps what runs commands
    (hooks, MCP servers, test and verify commands, shell allow-lists, yolo) only in a trusted folder
    (see config.trust): ``trust`` True trusts it for this call, None asks the stored rules.
    ``project_text`` replaces the project file's content (a review reads it from the base revision;
    ``project_source`` names where it came from).
    """
    merged: dict[str, Any] = {}
    origin: dict[str, str] = {}
    _merge(
        merged, origin, _read_yaml(user_config_dir() / "config.yml"), str(user_config_dir() / "config.yml")
    )
    project_trust = ProjectTrust()
    if project_root is not None:
        project_file = ProjectPaths(project_root).config_file
        source = project_source or str(project_file)
        layer = _read_yaml(project_file) if project_text is None else _parse_yaml(project_text, source)
        trusted, reason = decide(project_root, trust)
        withheld: list[str] = []
        if not trusted:
            layer, withheld = withhold(layer)
        project_trust = ProjectTrust(str(project_root), trusted, reason, withheld)
        _merge(merged, origin, layer, source)
    for key, value in _env_layer(os.environ if env is None else env).items():
        _merge(merged, origin, nest_dotted({key: value}), f"environment variable {_env_name(key)}")
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    _merge(merged, origin, nest_dotted(flags), "command-line flags")
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as exc:
        raise _config_error(exc, origin) from None
    settings._trust = project_trust
    settings._origins = origin
    return settings


def project_layer(project_root: Path) -> dict[str, Any]:
    """The project's own ``.acode/config.yml`` as written (nothing withheld): what trust decides about."""
    return _read_yaml(ProjectPaths(project_root).config_file)


def _read_yaml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return _parse_yaml(path.read_text(encoding="utf-8"), str(path))
    except UnicodeDecodeError as exc:
        raise ConfigError(
            "ACODE-CFG-004",
            f"{path} is not UTF-8 text (byte {exc.start} cannot be decoded)",
            hint="save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)",
        ) from None
    except OSError as exc:
        raise ConfigError("ACODE-CFG-002", f"cannot read {path}: {exc.strerror}") from None


def _parse_yaml(text: str, path: str) -> dict[str, Any]:
    try:
        data = yaml_text.load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(
            "ACODE-CFG-001", f"{path} is not valid YAML{where}", hint="fix the syntax or delete the file"
        ) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            "ACODE-CFG-003", f"{path} must hold a mapping of settings, not {type(data).__name__}"
        )
    return data


def _env_name(dotted: str) -> str:
    return ENV_PREFIX + dotted.replace(".", "__").upper()


def _env_layer(env: Mapping[str, str]) -> dict[str, Any]:
    """``ACODE_MODEL__BACKEND=openai`` -> ``{"model.backend": "openai"}``; values parsed as YAML scalars."""
    out: dict[str, Any] = {}
    for name, raw in env.items():
        if not name.startswith(ENV_PREFIX) or "__" not in name:
            continue
        dotted = name[len(ENV_PREFIX) :].lower().replace("__", ".")
        try:
            out[dotted] = yaml_text.load(raw) if raw != "" else ""
        except yaml.YAMLError:
            out[dotted] = raw
    return out


def nest_dotted(flat: Mapping[str, Any]) -> dict[str, Any]:
    """``{"model.backend": "openai"}`` -> ``{"model": {"backend": "openai"}}``."""
    nested: dict[str, Any] = {}
    for dotted, value in flat.items():
        node = nested
        *parents, leaf = dotted.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def _merge(
    into: dict[str, Any], origin: dict[str, str], layer: Mapping[str, Any], source: str, prefix: str = ""
) -> None:
    if not prefix:
        layer = expand_short_form(dict(layer))
    for key, value in layer.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and isinstance(into.get(key), dict):
            _merge(into[key], origin, value, source, dotted + ".")
        else:
            into[key] = dict(value) if isinstance(value, Mapping) else value
            origin[dotted] = source
            for sub in _flatten_keys(value, dotted):
                origin[sub] = source


def _flatten_keys(value: Any, prefix: str) -> list[str]:
    if not isinstance(value, Mapping):
        return []
    keys = []
    for key, sub in value.items():
        keys.append(f"{prefix}.{key}")
        keys.extend(_flatten_keys(sub, f"{prefix}.{key}"))
    return keys


def _source_of(dotted: str, origin: Mapping[str, str]) -> str:
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        candidate = ".".join(parts[:n])
        if candidate in origin:
            return origin[candidate]
    return "the built-in defaults"


def _known_keys(loc: tuple[Any, ...]) -> list[str]:
    model: Any = Settings
    for part in loc[:-1]:
        field = (
            model.model_fields.get(str(part))
            if isinstance(model, type) and issubclass(model, BaseModel)
            else None
        )
        if field is None:
            return []
        model = field.annotation
    if isinstance(model, type) and issubclass(model, BaseModel):
        return list(model.model_fields)
    return []


def _config_error(exc: ValidationError, origin: Mapping[str, str]) -> ConfigError:
    lines, fixes = [], []
    for err in exc.errors():
        loc = tuple(err["loc"])
        dotted = ".".join(str(p) for p in loc)
        source = _source_of(dotted, origin)
        if err["type"] == "extra_forbidden":
            known = _known_keys(loc)
            close = difflib.get_close_matches(str(loc[-1]), known, n=1)
            suggestion = f"; did you mean '{close[0]}'?" if close else ""
            allowed = f" Known keys here: {', '.join(known)}." if known else ""
            lines.append(f"{source}: unknown key '{dotted}'{suggestion}{allowed}")
        else:
            value = err.get("input")
            lines.append(f"{source}: '{dotted}' = {value!r} is not allowed: {err['msg']}")
        fixes.append(_where_to_fix(dotted, source))
    # not `acode config show`: it loads the same settings and fails with this same error
    return ConfigError(
        "ACODE-CFG-010",
        "invalid configuration\n  " + "\n  ".join(lines),
        hint="; ".join(dict.fromkeys(fixes)),
    )


def _where_to_fix(dotted: str, source: str) -> str:
    if source.startswith("environment variable "):
        return f"change or unset {source.removeprefix('environment variable ')}"
    if source == "command-line flags":
        return f"change the command-line flag that sets '{dotted}'"
    return f"fix or remove the key '{dotted}' in {source}"
