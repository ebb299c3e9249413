"""Compression with the real embedded 0.5B model: it fires in the middle of a task (small threshold),
the real model writes the state snapshot, and the agent still finishes the task from the compressed
history (the answer comes from the verbatim tail; the request itself only survives in the snapshot)."""

from __future__ import annotations

import pytest

from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.config.settings import Settings
from acode.llm.types import Message, ToolCall
from acode.tools.builtin import default_registry

TASK = "Read notes.txt and code.txt, then tell me the release code written in code.txt."


@pytest.mark.real_model
def test_compression_mid_task_with_real_model(tmp_path, real_model, real_model_settings):
    notes = "".join(f"Line {i}: the build uses make and the tests use pytest.\n" for i in range(60))
    (tmp_path / "notes.txt").write_text(notes)
    (tmp_path / "code.txt").write_text("The release code is pelican-42.\n")
    settings = Settings.model_validate(
        {
            "model": {**real_model_settings.model_dump(mode="json"), "max_tokens": 96},
            # the next step must come from the compressed history (a second turn if it reads a file again)
            "agent": {"max_turns": 2},
            # outputs are not masked here, so the real model has to write the snapshot
            "compression": {"threshold": 0.35, "mask_tool_output_tokens": 5000},
            "loop_detection": {"model_check": False},
            "next_speaker": {"use_model": False},
        }
    )
    registry = default_registry(["read_file", "write_file"])
    session = build_session(
        settings, tmp_path, SessionOptions(approval_mode="yolo"), model=real_model, registry=registry
    )
    compression = next(m for m in session.loop.middlewares if m.name == "compression")
    # the task so far: two files already read (as the agent would have), the notes output being large
    read_notes = ToolCall(name="read_file", arguments={"file_path": "notes.txt"})
    read_code = ToolCall(name="read_file", arguments={"file_path": "code.txt"})
    session.state.history += [
        Message.user(TASK),
        Message.assistant("", [read_notes]),
        Message.tool(read_notes, notes),
        Message.assistant("", [read_code]),
        Message.tool(read_code, "The release code is pelican-42.\n"),
    ]
    before = compression.tokens(session.state)
    assert before >= compression.limit  # compression must run before the next model call

    result = session.send(None)
    session.close()

    steps = [(s.type, getattr(s, "text", ""), getattr(s, "tool_calls", "")) for s in result.trajectory]
    report = compression.reports[0]
    assert report.status == "compressed", (report, steps)
    assert report.tokens_after < before
    assert report.detail == "summarised by the model", report  # not the facts-only fallback
    snapshot = next(m.content for m in session.state.history if "<state_snapshot>" in m.content)
    assert TASK in snapshot and "notes.txt" in snapshot
    assert result.stop_reason == "answer", (report, steps)
    assert "pelican-42" in result.answer, (report, steps)
