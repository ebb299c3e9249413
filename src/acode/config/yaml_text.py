"""YAML for settings, with YAML 1.2's booleans: only true/false are booleans. PyYAML follows YAML 1.1,
where `off`, `on`, `yes`, `no` are booleans too, so `method: off` (or ACODE_REVIEWER__REGRESSION__METHOD=off)
arrived as False and was refused by a setting whose choices include "off". The settings models accept
"yes"/"on"/... as booleans themselves, so nothing that was true before is lost."""

from __future__ import annotations

import re
from typing import Any

import yaml


class _SettingsLoader(yaml.SafeLoader):
    pass


_SettingsLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_SettingsLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def load(text: str) -> Any:
    return yaml.load(text, Loader=_SettingsLoader)
