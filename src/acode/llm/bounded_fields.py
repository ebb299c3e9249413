"""Length-bounded fields for what small models answer in JSON: the bound is in the JSON schema (so a
grammar-constrained answer stays short and inside its token budget) and a longer answer from an
unconstrained backend is cut to it instead of being rejected."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Field, StringConstraints


def _cut(limit: int):
    return lambda value: value[:limit] if isinstance(value, (str, list)) else value


def bounded_text(limit: int) -> Any:
    return Annotated[str, BeforeValidator(_cut(limit)), StringConstraints(max_length=limit)]


def bounded_list(item: Any, limit: int) -> Any:
    return Annotated[list[item], BeforeValidator(_cut(limit)), Field(max_length=limit)]
