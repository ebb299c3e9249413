"""Prompt templates are Jinja files kept beside the code that uses them (``<package>/prompts/*.j2``),
rendered with strict undefined variables so a missing value is an error, not a silent blank."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2


@cache
def _environment(package: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader(package, "prompts"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=False,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render(package: str, template: str, **values: Any) -> str:
    """``render("acode.agent", "system.j2", tools=...)``."""
    return _environment(package).get_template(template).render(**values).strip()
