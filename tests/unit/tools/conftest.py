"""Fixtures for tool tests: a workspace with a context, and a helper to call tools through the
registry's validating dispatcher exactly as the agent loop does."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.llm.types import ToolCall
from acode.tools.base import ToolContext, ToolResult
from acode.tools.builtin import default_registry


@pytest.fixture
def workspace(tmp_path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def ctx(workspace, tmp_path) -> ToolContext:
    return ToolContext(workspace=workspace, outputs_dir=tmp_path / "outputs")


@pytest.fixture
def call(ctx):
    """``call("read_file", file_path="a.py")`` -> ToolResult, through ToolRegistry.dispatch."""
    registry = default_registry()

    def _call(name: str, _ctx: ToolContext | None = None, **arguments) -> ToolResult:
        return registry.dispatch(ToolCall(name=name, arguments=arguments), _ctx or ctx)

    return _call
