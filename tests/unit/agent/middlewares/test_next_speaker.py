"""Next-speaker check: cheap rules first, the utility model only when they cannot tell."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.middlewares.next_speaker import CONTINUE_MESSAGE, NextSpeakerCheck, rule_verdict
from acode.config.middlewares import NextSpeakerSettings
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Message, ToolCall
from acode.tools.base import ToolResult


def state(turn: int = 1) -> AgentState:
    return AgentState(
        session_id="s", workspace=Path("."), history=[Message.user("t")], approval_mode="default", turn=turn
    )


@pytest.mark.parametrize(
    "text",
    [
        "I read the file. Next, I will add the is_even function to util.py.",
        "Here is what I found:",
        "The tests fail because of a typo. Let me fix the typo in util.py now",
        "",
    ],
)
def test_rules_say_model_goes_on(text):
    assert rule_verdict(text) == "model"


@pytest.mark.parametrize(
    "text",
    [
        "Should I also update the README?",
        "I have added is_even to util.py and all tests pass.",
        "Wrote report.md.",
        "Simplified the f0 functions.",
        "The function is implemented. Let me know if you need anything else.",
    ],
)
def test_rules_say_user_speaks(text):
    assert rule_verdict(text) == "user"


def test_rules_cannot_tell_plain_statement():
    assert rule_verdict("The configuration file uses YAML.") is None


def test_continue_when_model_meant_to_go_on_without_model_call():
    utility = ScriptedModel([])
    check = NextSpeakerCheck(max_turns=10, model=utility)
    assert check.on_final_answer(state(), "Next, I will run the tests.") == CONTINUE_MESSAGE
    assert utility.calls == []


def test_model_asked_only_when_rules_cannot_tell():
    utility = ScriptedModel([{"json": {"reasoning": "stopped mid-work", "next_speaker": "model"}}])
    check = NextSpeakerCheck(max_turns=10, model=utility)
    assert check.on_final_answer(state(), "The configuration file uses YAML.") == CONTINUE_MESSAGE
    assert len(utility.calls) == 1
    assert "The configuration file uses YAML." in utility.calls[0]["messages"][0].content


def test_no_model_configured_means_user_speaks():
    check = NextSpeakerCheck(max_turns=10, model=None)
    assert check.on_final_answer(state(), "The configuration file uses YAML.") is None


def test_respects_turn_limit_and_max_continues():
    check = NextSpeakerCheck(NextSpeakerSettings(max_continues=2), max_turns=10)
    assert check.on_final_answer(state(9), "Next, I will edit it.") is None  # would exceed max_turns
    st = state(2)
    assert check.on_final_answer(st, "Next, I will edit it.") == CONTINUE_MESSAGE
    assert check.on_final_answer(st, "Next, I will edit it.") == CONTINUE_MESSAGE
    assert check.on_final_answer(st, "Next, I will edit it.") is None
    check.after_tool(st, ToolCall(name="read_file"), ToolResult(output="x"))
    assert check.on_final_answer(st, "Next, I will edit it.") == CONTINUE_MESSAGE


def test_disabled():
    check = NextSpeakerCheck(NextSpeakerSettings(enabled=False), max_turns=10)
    assert check.on_final_answer(state(), "Next, I will edit it.") is None
