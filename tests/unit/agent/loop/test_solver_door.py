"""The loop's door for solvers (acode.agent.loop.solver_door): the test-driven fixer's model calls are turns
with every middleware, and a rejected candidate is put back through the write tool, so whatever watches
tool calls (hooks, checkpoints, the session's recording) sees the restore."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply

from acode.agent.fixing import TestDrivenFixer
from acode.agent.loop.agent_loop import AgentLoop
from acode.agent.loop.middleware import AgentState, Middleware
from acode.config.agent import FixConfig
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion, ToolCall
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry

WRONG = BUGGY.replace("a - b", "a * b")


class Watcher(Middleware):
    name = "watcher"

    def __init__(self) -> None:
        self.turns: list[int] = []
        self.replies: list[str] = []
        self.writes: list[str] = []

    def before_model(self, state: AgentState) -> None:
        self.turns.append(state.turn)

    def after_model(self, state: AgentState, completion: Completion) -> None:
        self.replies.append(completion.text)

    def before_tool(self, state: AgentState, call: ToolCall) -> None:
        if call.name == "write_file":
            self.writes.append(call.arguments["content"])


@pytest.fixture
def calc(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo


def fix(root: Path, replies: list[str], **settings):
    watcher = Watcher()
    settings.setdefault("line_edit_calls", 0)  # the whole-file calls; test_fixing_line_edit.py has the rest
    settings.setdefault("token_budget", 0)  # the call limits alone; test_fixing_budget.py has the budget
    settings.setdefault("mutants", 0)  # the model's candidates alone; test_fixing_mutants.py has the edits
    settings.setdefault("deletions", 0)
    fixer = TestDrivenFixer(FixConfig(test_command=f"{sys.executable} -m pytest -q -p no:cacheprovider",
                                      **settings))
    loop = AgentLoop(ScriptedModel(replies), default_registry(), ToolContext(workspace=root),
                     middlewares=[watcher], solver=fixer)
    result = loop.run(loop.new_state("system", session_id="t", approval_mode="yolo"), REQUEST)
    return result, watcher


def test_the_fixers_model_calls_are_turns_that_every_middleware_sees(calc):
    result, watcher = fix(calc, [reply(WRONG), reply(FIXED)])
    assert (calc / "calc.py").read_text() == FIXED
    model_steps = [s for s in result.trajectory if s.type == "model"]
    assert [s.turn for s in model_steps] == watcher.turns == [1, 2]
    # as the model wrote them: generation stopped at the closing fence
    assert watcher.replies == [reply(WRONG).removesuffix("\n```\n"), reply(FIXED).removesuffix("\n```\n")]


def test_a_rejected_candidate_is_put_back_through_the_write_tool(calc):
    result, watcher = fix(calc, [reply(WRONG)], max_model_calls=1)
    assert result.stop_reason == "tests_failing" and "as they were" in result.message
    assert (calc / "calc.py").read_text() == BUGGY
    assert watcher.writes == [WRONG, BUGGY]  # the candidate, then the original through the same tool
    writes = [s for s in result.tool_steps() if s.name == "write_file"]
    assert [s.ok for s in writes] == [True, True]
