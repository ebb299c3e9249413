"""The chat's side of plan approval: the plan is shown, y / a / n (with feedback) become decisions."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from acode.cli.slash_session import ChatSessionUI


@pytest.mark.parametrize(
    ("answers", "approved", "mode", "feedback"),
    [
        (["y"], True, "default", ""),
        (["a"], True, "auto_edit", ""),
        (["n", "add a test step"], False, "default", "add a test step"),
    ],
)
def test_plan_approval_answers(monkeypatch, answers, approved, mode, feedback):
    replies = iter(answers)
    monkeypatch.setattr("builtins.input", lambda *a: next(replies))
    out = io.StringIO()
    ui = ChatSessionUI(Console(file=out, width=100, force_terminal=False))
    decision = ui.approve_plan(Path(".acode/plans/s1/plan.md"), "# Plan\n1. Create hello.py\n")
    assert (decision.approved, decision.mode, decision.feedback) == (approved, mode, feedback)
    assert "Create hello.py" in out.getvalue() and "plan.md" in out.getvalue()
