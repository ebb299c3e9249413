"""``docs/reference/config.md``: every settings key, walked from the pydantic models (``Settings`` and the
models nested in it), with its type, default and meaning (the Field's description, else the comment just
above the field in the source, else the nested model's docstring)."""

from __future__ import annotations

import ast
import inspect
import textwrap
import typing
from dataclasses import dataclass
from enum import Enum
from functools import cache
from pathlib import PurePath

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from acode.docs.markdown import page, table

INTRO = (
    "Every key of `.acode/config.yml` (project) and `~/.config/acode/config.yml` (user), "
    "section by section. A key written `a.<name>.b` sits under a name you choose; `a[].b` is a key of "
    "each item of the list `a`. `acode config show` prints the values in effect and where each came from."
)


@dataclass(frozen=True)
class Key:
    dotted: str
    type: str
    default: str
    meaning: str


@dataclass(frozen=True)
class Section:
    prefix: str
    doc: str
    keys: list[Key]


def sections(model: type[BaseModel], prefix: str = "") -> list[Section]:
    """The model's own keys as one section, then one section per nested model, depth first."""
    own: list[Key] = []
    nested: list[Section] = []
    for name, field in model.model_fields.items():
        dotted = f"{prefix}{name}"
        inner, suffix = _nested_model(field.annotation)
        if inner is not None:
            nested += sections(inner, f"{dotted}{suffix}.")
            continue
        own.append(Key(dotted, type_name(field.annotation), _default(field), _meaning(model, name, field)))
    doc = inspect.getdoc(model) if model.__doc__ else ""
    return ([Section(prefix.rstrip("."), doc or "", own)] if own else []) + nested


def keys(model: type[BaseModel]) -> list[str]:
    return [key.dotted for section in sections(model) for key in section.keys]


def render(model: type[BaseModel]) -> str:
    body: list[str] = []
    for section in sections(model):
        body += [f"## `{section.prefix}`" if section.prefix else "## top level", ""]
        if section.doc:
            body += [" ".join(section.doc.split()), ""]
        rows = [[f"`{key.dotted}`", key.type, key.default, key.meaning] for key in section.keys]
        body += [*table(["key", "type", "default", "meaning"], rows), ""]
    return page("Configuration reference", INTRO, body)


def _nested_model(annotation: object) -> tuple[type[BaseModel] | None, str]:
    """A settings model reached through this annotation, and how its keys are written under the field."""
    if _is_model(annotation):
        return annotation, ""  # type: ignore[return-value]
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is dict and len(args) == 2 and _is_model(args[1]):
        return args[1], ".<name>"
    if origin is list and args and _is_model(args[0]):
        return args[0], "[]"
    models = [arg for arg in args if _is_model(arg)]
    if origin in (typing.Union, _union_type()) and len(models) == 1:
        return models[0], ""
    return None, ""


def _is_model(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseModel)


def _union_type() -> object:
    import types

    return types.UnionType


def type_name(annotation: object) -> str:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(repr(arg).replace("'", '"') for arg in args)
    if origin in (typing.Union, _union_type()):
        return " | ".join(type_name(arg) for arg in args)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin is not None:
        inner = ", ".join(type_name(arg) for arg in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "null"
    return getattr(annotation, "__name__", str(annotation))


def _default(field: typing.Any) -> str:
    if field.default_factory is not None:
        value = field.default_factory()
    elif field.default is PydanticUndefined:
        return "(required)"
    else:
        value = field.default
    return _shown(value)


def _shown(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return _shown(value.value)
    if isinstance(value, PurePath | str):
        return f'"{value}"'
    if isinstance(value, BaseModel):
        return _shown(value.model_dump(mode="json"))
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_shown(item)}" for key, item in value.items()) + "}"
    return str(value)


def _meaning(model: type[BaseModel], name: str, field: typing.Any) -> str:
    if field.description:
        return field.description
    for klass in model.__mro__:
        if name in getattr(klass, "__annotations__", {}):
            return _comments_above(klass).get(name, "")
    return ""


@cache
def _comments_above(klass: type) -> dict[str, str]:
    """Field name -> the ``#`` comment lines written just above it in the class body."""
    try:
        source = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):
        return {}
    lines = source.splitlines()
    found: dict[str, str] = {}
    class_node = ast.parse(source).body[0]
    for node in getattr(class_node, "body", []):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            comment: list[str] = []
            index = node.lineno - 2
            while index >= 0 and lines[index].strip().startswith("#"):
                comment.insert(0, lines[index].strip().lstrip("#").strip())
                index -= 1
            if comment:
                found[node.target.id] = " ".join(comment)
    return found
