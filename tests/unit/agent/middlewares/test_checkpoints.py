"""Checkpoints: snapshot before each successful edit, /restore undoes the last N (removing created files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.middlewares.checkpoints import Checkpoints
from acode.errors import UsageError
from acode.llm.types import Message, ToolCall
from acode.tools.base import ToolResult


def edit(
    ck: Checkpoints, st: AgentState, ws: Path, name: str, rel: str, content: str | None, ok: bool = True
) -> None:
    call = ToolCall(name=name, arguments={"file_path": rel, "content": content or ""})
    ck.before_tool(st, call)
    if ok and content is not None:
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(content)
    ck.after_tool(st, call, ToolResult(output="ok") if ok else ToolResult(error="no match"))


@pytest.fixture
def setup(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "a.py").write_text("v1\n")
    st = AgentState(session_id="s1", workspace=ws, history=[Message.user("x")], approval_mode="auto_edit")
    ck = Checkpoints(ws)
    ck.on_session_start(st)
    return ws, st, ck


def test_restore_undoes_last_n_edits_and_removes_created_files(setup):
    ws, st, ck = setup
    edit(ck, st, ws, "write_file", "a.py", "v2\n")
    edit(ck, st, ws, "write_file", "new/b.py", "created\n")
    edit(ck, st, ws, "replace", "a.py", "v3\n")
    assert ck.store is not None and ck.store.count() == 3
    assert (ws / ".acode/checkpoints/s1").is_dir()

    undone = ck.restore(2)
    assert [u.tool for u in undone] == ["replace", "write_file"]
    assert (ws / "a.py").read_text() == "v2\n"
    assert not (ws / "new/b.py").exists()
    assert ck.store.count() == 1

    ck.restore(1)
    assert (ws / "a.py").read_text() == "v1\n"
    with pytest.raises(UsageError, match="no edit to restore"):
        ck.restore(1)


def test_failed_edits_and_non_edit_tools_are_not_checkpointed(setup):
    ws, st, ck = setup
    edit(ck, st, ws, "replace", "a.py", None, ok=False)
    call = ToolCall(name="read_file", arguments={"file_path": "a.py"})
    ck.before_tool(st, call)
    ck.after_tool(st, call, ToolResult(output="v1"))
    assert ck.store is not None and ck.store.count() == 0


def test_plan_files_are_not_checkpointed(setup):
    ws, st, ck = setup
    edit(ck, st, ws, "write_file", ".acode/plans/s1/plan.md", "# plan\n")
    assert ck.store is not None and ck.store.count() == 0


def test_keep_limits_checkpoints(tmp_path):
    ws = tmp_path
    st = AgentState(session_id="s2", workspace=ws, history=[], approval_mode="yolo")
    ck = Checkpoints(ws, keep=3)
    ck.on_session_start(st)
    for i in range(5):
        edit(ck, st, ws, "write_file", "f.txt", f"{i}\n")
    assert ck.store is not None and [m["seq"] for m in ck.store.list()] == [3, 4, 5]
    ck.restore(3)
    assert (ws / "f.txt").read_text() == "1\n"
