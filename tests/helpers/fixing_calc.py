"""calc.py with a failing test: the fixer's smallest project, its request, and a session that fixes it."""

from __future__ import annotations

import sys
from pathlib import Path

from acode.agent.session.agent_session import AgentSession, SessionOptions
from acode.agent.session.builder import build_session
from acode.config import Settings

QUIET = {
    name: {"enabled": False} for name in ("next_speaker", "compression", "loop_detection", "checkpoints")
}


BUGGY = "def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 2 * x\n"


FIXED = BUGGY.replace("a - b", "a + b")


TESTS = (
    "from calc import add, double\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_double():\n    assert double(2) == 4\n"
)


REQUEST = (
    "The tests in test_calc.py fail because calc.py has a bug. Fix the bug in calc.py. "
    "Do not change the tests."
)


def reply(text: str, path: str = "calc.py") -> str:
    return f"{path}\n```python\n{text}```\n"


def session(root: Path, model, *, mode: str = "yolo", **fix) -> AgentSession:
    fix.setdefault("test_command", f"{sys.executable} -m pytest -q -p no:cacheprovider")
    fix.setdefault("line_edit_calls", 0)  # the whole-file calls alone; test_fixing_line_edit.py has the rest
    fix.setdefault("token_budget", 0)  # the call limits alone; test_fixing_budget.py has the budget
    fix.setdefault("mutants", 0)  # the model's candidates alone; test_fixing_mutants.py has the edits
    fix.setdefault("deletions", 0)  # (and the deleted statements)
    fix.setdefault("crash_edits", 0)  # and test_fixing_crash_edits.py the crashed statements' edits
    fix.setdefault("function_asks", 0)  # and test_fixing_function_asks.py the function-level candidates
    settings = Settings.model_validate({**QUIET, "agent": {"fix": fix}})
    return build_session(settings, root, SessionOptions(approval_mode=mode), model=model)
