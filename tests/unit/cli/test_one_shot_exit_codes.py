"""`acode -p` maps how a session stopped to the shared exit codes."""

from __future__ import annotations

from typing import ClassVar

import pytest

from acode.agent.loop.result import AgentResult
from acode.cli import chat
from acode.config import load_settings
from acode.errors import EXIT_FAILURE, EXIT_HUMAN_DECLINED, EXIT_OK


class _Session:
    def __init__(self, result: AgentResult):
        self.result = result

    def send(self, prompt: str) -> AgentResult:
        return self.result

    def close(self) -> None:
        pass


class _Options:
    observers: ClassVar[list] = []


@pytest.mark.parametrize(
    ("stop_reason", "code"),
    [
        ("answer", EXIT_OK),
        ("plan_not_approved", EXIT_HUMAN_DECLINED),
        ("max_turns", EXIT_FAILURE),
        ("interrupted", 130),
    ],
)
def test_stop_reason_to_exit_code(tmp_path, monkeypatch, capsys, stop_reason, code):
    from acode.agent.session import builder

    result = AgentResult(session_id="s1", answer="the plan", stop_reason=stop_reason)
    monkeypatch.setattr(builder, "build_session", lambda *a, **k: _Session(result))
    assert chat.run_once(load_settings(tmp_path), tmp_path, _Options(), "plan it", json_out=False) == code
    assert "the plan" in capsys.readouterr().out
