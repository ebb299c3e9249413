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
    "each item of the list `a`; `a.<key>.b` stands for each of the keys its section lists, which all take "
    "the same settings. `acode config show` prints the values in effect and where each came from."
)
PLACEHOLDER = "<key>"
FOLD_AT_LEAST = 3  # sections of the same shape written once from this many


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
    stands_for: tuple[str, ...] = ()  # the keys PLACEHOLDER stands for in a folded section


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


def folded(found: list[Section]) -> list[Section]:
    """``found`` with the sections that differ only in one key of their prefix (the same keys, types,
    defaults and meanings under it; hooks' eight events) written once, where the first of them was."""
    out: list[Section] = []
    used: set[int] = set()
    for i, section in enumerate(found):
        if i in used:
            continue
        for at in range(len(section.prefix.split("."))):
            group = [j for j in range(i, len(found)) if j not in used and _same_but(found[j], section, at)]
            if len(group) >= FOLD_AT_LEAST:
                used.update(group)
                names = tuple(_bare(found[j].prefix.split(".")[at]) for j in group)
                out.append(_with_placeholder(section, at, names))
                break
        else:
            out.append(section)
    return out


def _bare(segment: str) -> str:
    return segment.removesuffix("[]")


def _placed(dotted: str, at: int) -> str:
    parts = dotted.split(".")
    parts[at] = PLACEHOLDER + parts[at][len(_bare(parts[at])):]
    return ".".join(parts)


def _same_but(other: Section, section: Section, at: int) -> bool:
    parts = section.prefix.split(".")
    if _bare(parts[at]).startswith("<") or len(other.prefix.split(".")) != len(parts):
        return False  # a name you choose is written <name> already
    if _placed(other.prefix, at) != _placed(section.prefix, at) or other.doc != section.doc:
        return False
    return [(_placed(key.dotted, at), key.type, key.default, key.meaning) for key in section.keys] == [
        (_placed(key.dotted, at), key.type, key.default, key.meaning) for key in other.keys]


def _with_placeholder(section: Section, at: int, names: tuple[str, ...]) -> Section:
    placed = [Key(_placed(key.dotted, at), key.type, key.default, key.meaning) for key in section.keys]
    return Section(_placed(section.prefix, at), section.doc, placed, names)


def keys(model: type[BaseModel]) -> list[str]:
    return [key.dotted for section in folded(sections(model)) for key in section.keys]


def render(model: type[BaseModel]) -> str:
    body: list[str] = []
    for section in folded(sections(model)):
        body += [f"## `{section.prefix}`" if section.prefix else "## top level", ""]
        if section.stands_for:
            body += [f"`{PLACEHOLDER}` is each of " + ", ".join(f"`{name}`" for name in section.stands_for)
                     + ": the same settings under each.", ""]
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
