"""The middlewares of a session, in the order their hooks run. Other parts plug theirs in by adding a
``"module:function"`` line to ``BUILDERS`` (or calling ``register_builder``); each builder gets the
session's ``MiddlewareOptions`` and returns a middleware, a list of them, or None (turned off)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acode.agent.middleware import Middleware
from acode.config.settings import Settings
from acode.llm.protocol import ChatModel


@dataclass
class MiddlewareOptions:
    settings: Settings
    model: ChatModel
    workspace: Path
    interactive: bool = False
    no_loop_detection: bool = False
    approve_plan: bool = False
    ui: Any = None  # the chat's callbacks (e.g. to show a plan for approval); None when non-interactive
    registry: Any = None  # the session's ToolRegistry (plan mode adds its tools)
    ctx: Any = None  # the session's ToolContext (plan mode makes its plans folder writable)
    extra: dict[str, Any] = field(default_factory=dict)


Builder = Callable[[MiddlewareOptions], Middleware | Sequence[Middleware] | None]

# Imported lazily, in this order, when a session starts.
BUILDERS: list[str] = ["acode.agent.control_builders:build_self_control"]
_registered: list[Builder] = []


def register_builder(builder: Builder) -> None:
    if builder not in _registered:
        _registered.append(builder)


def _load(path: str) -> Builder:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def build_middlewares(options: MiddlewareOptions) -> list[Middleware]:
    middlewares: list[Middleware] = []
    for builder in [*(_load(p) for p in BUILDERS), *_registered]:
        made = builder(options)
        if made is None:
            continue
        middlewares.extend([made] if isinstance(made, Middleware) else made)
    return middlewares
