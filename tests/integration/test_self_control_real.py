"""The model-backed checks (loop check, next-speaker) against the real embedded 0.5B model: the prompt
templates, the JSON schemas and constrained decoding must work with a real small model."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.middlewares.loop_detection import LoopDetection
from acode.agent.middlewares.next_speaker import CONTINUE_MESSAGE, NextSpeakerCheck
from acode.config.middlewares import LoopDetectionSettings
from acode.llm.types import Completion, Message, ToolCall


@pytest.mark.real_model
def test_loop_check_by_real_model_gives_a_verdict_and_schedules_the_next(real_model):
    call = ToolCall(name="read_file", arguments={"file_path": "setup.py"})
    history = [Message.user("Find why the build fails.")]
    for _ in range(6):
        history += [
            Message.assistant("Let me read setup.py again.", [call]),
            Message.tool(call, "from setuptools import setup"),
        ]
    detector = LoopDetection(
        LoopDetectionSettings(model_check_after_turns=1, tool_call_repeats=50), model=real_model
    )
    state = AgentState(session_id="s", workspace=Path("."), history=history, approval_mode="default", turn=0)
    detector.on_session_start(state)  # first model check due after 1 turn
    state.turn = 1
    detector.after_model(state, Completion(text="Let me read setup.py again."))
    verdict = detector.last_verdict
    assert verdict is not None and 0.0 <= verdict.confidence <= 1.0  # the real model's answer parsed
    expected_gap = round(15 - 10 * verdict.confidence)  # sooner when the model is more suspicious
    assert detector._next_model_check == 1 + expected_gap
    assert all(kind == "model_check" for kind, _ in detector.detections)


@pytest.mark.real_model
def test_next_speaker_asks_real_model_only_when_rules_cannot_tell(real_model):
    check = NextSpeakerCheck(max_turns=10, model=real_model)
    state = AgentState(
        session_id="s", workspace=Path("."), history=[Message.user("x")], approval_mode="default", turn=1
    )
    assert check.on_final_answer(state, "Next, I will open util.py.") == CONTINUE_MESSAGE
    assert check.model_checks == 0
    answer = check.on_final_answer(state, "The configuration file uses YAML.")
    assert check.model_checks == 1
    verdict = check.last_model_verdict
    assert verdict is not None  # the real model's answer parsed
    assert answer == (CONTINUE_MESSAGE if verdict.next_speaker == "model" else None)
