"""Loop detection as a standalone middleware (the loop's contract is only the hook calls)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.stops import LoopDetected
from acode.agent.middlewares.loop_detection import ChantDetector, LoopDetection, repeating_cycle
from acode.config.middlewares import LoopDetectionSettings
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion, Message, ToolCall, call_key


def state() -> AgentState:
    return AgentState(
        session_id="s", workspace=Path("."), history=[Message.user("task")], approval_mode="default"
    )


def call(name: str, **args) -> Completion:
    return Completion(tool_calls=[ToolCall(name=name, arguments=args)], finish_reason="tool_calls")


def run_turns(detector: LoopDetection, st: AgentState, completions: list[Completion]) -> None:
    detector.on_session_start(st)
    for completion in completions:
        st.turn += 1
        detector.before_model(st)
        detector.after_model(st, completion)
        st.history.append(completion.as_message())


def test_call_key_ignores_argument_order_but_not_values():
    a = ToolCall(name="replace", arguments={"file_path": "a.py", "old_string": "x", "new_string": "y"})
    b = ToolCall(name="replace", arguments={"new_string": "y", "old_string": "x", "file_path": "a.py"})
    c = ToolCall(name="replace", arguments={"new_string": "y", "old_string": "x", "file_path": "b.py"})
    assert call_key(a.name, a.arguments) == call_key(b.name, b.arguments) != call_key(c.name, c.arguments)


def test_repeating_cycle_finds_length_one_to_five():
    assert repeating_cycle(list("aaaaa"), 5, 5) == 1
    assert repeating_cycle(list("xababababab"), 5, 5) == 2
    assert repeating_cycle(list("abcabcabcabcab"), 5, 5) == 0  # only 4.67 repeats
    assert repeating_cycle(list("abcde") * 5, 5, 5) == 5
    assert repeating_cycle(list("aaaa"), 5, 5) == 0


def test_batch_edit_of_twelve_files_does_not_trip():
    detector = LoopDetection()
    st = state()
    edits = [
        call("replace", file_path=f"src/mod{i}.py", old_string="import os", new_string="import os, sys")
        for i in range(12)
    ]
    reads = [call("read_file", file_path=f"src/mod{i}.py") for i in range(12)]
    interleaved = [c for pair in zip(reads, edits) for c in pair]
    run_turns(detector, st, interleaved)
    assert detector.detections == []
    assert not any("repeating" in m.content for m in st.history if m.role == "user")


def test_five_identical_calls_nudge_then_sixth_stops():
    detector = LoopDetection()
    st = state()
    same = call("run_shell_command", command="pytest -x")
    run_turns(detector, st, [same] * 5)
    assert [k for k, _ in detector.detections] == ["tool_calls"]
    detector.before_model(st)  # the nudge is added before the next model call
    assert "repeating" in st.history[-1].content and st.history[-1].role == "user"
    with pytest.raises(LoopDetected) as err:
        detector.after_model(st, same)
    assert err.value.kind == "tool_calls"
    assert err.value.reason == "loop_detected"


def test_a_changed_approach_after_the_nudge_is_not_stopped():
    detector = LoopDetection()
    st = state()
    run_turns(detector, st, [call("read_file", file_path="a.py")] * 5)
    run_turns_after = [call("grep_search", pattern=f"def f{i}") for i in range(6)]
    for completion in run_turns_after:
        detector.before_model(st)
        detector.after_model(st, completion)
    assert len(detector.detections) == 1


def test_two_call_cycle_is_detected():
    detector = LoopDetection()
    st = state()
    run_turns(
        detector,
        st,
        [call("read_file", file_path="a.py"), call("write_file", file_path="a.py", content="x")] * 5,
    )
    assert detector.detections and "cycle of 2" in detector.detections[0][1]


def test_chanting_text_detected_but_not_inside_code_or_lists():
    chant = ChantDetector(50, 10)
    assert chant.feed("I will now fix the failing test in the module. " * 12) is not None

    chant.reset()
    code = "```python\n" + "x = compute_something(value, other_value)  # same\n" * 30 + "```\n"
    assert chant.feed(code) is None

    chant.reset()
    listing = "".join(
        f"- updated the import line in module number {i:02d} of the package\n" for i in range(30)
    )
    assert chant.feed(listing) is None

    chant.reset()
    assert chant.feed("=" * 200 + "\n") is None


def test_text_loop_through_middleware_nudges_then_stops():
    detector = LoopDetection()
    st = state()
    chanting = Completion(text="Let me think about this again and again. " * 12)
    run_turns(detector, st, [chanting])
    assert detector.detections[0][0] == "text"
    with pytest.raises(LoopDetected):
        detector.after_model(st, chanting)


def test_disabled_by_config_switch():
    detector = LoopDetection(LoopDetectionSettings(enabled=False))
    st = state()
    run_turns(detector, st, [call("read_file", file_path="a.py")] * 12)
    assert detector.detections == []


def test_model_check_only_after_many_turns_and_at_high_confidence():
    utility = ScriptedModel([{"json": {"reasoning": "it keeps reading a.py and b.py", "confidence": 0.95}}])
    settings = LoopDetectionSettings(model_check_after_turns=30)
    detector = LoopDetection(settings, model=lambda: utility)
    st = state()
    varied = [call("read_file", file_path=f"f{i}.py") for i in range(29)]
    run_turns(detector, st, varied)
    assert utility.calls == []  # no model check before turn 30
    st.turn = 30
    detector.after_model(st, call("read_file", file_path="other.py"))
    assert len(utility.calls) == 1
    assert "batch work" in utility.calls[0]["messages"][0].content
    assert detector.detections == [("model_check", "it keeps reading a.py and b.py")]


def test_model_check_interval_depends_on_confidence():
    utility = ScriptedModel(
        [
            {"json": {"reasoning": "progress", "confidence": 0.0}},
            {"json": {"reasoning": "hmm", "confidence": 0.5}},
        ]
    )
    detector = LoopDetection(LoopDetectionSettings(model_check_after_turns=1), model=utility)
    st = state()
    detector.on_session_start(st)
    for turn in range(1, 40):
        st.turn = turn
        detector.after_model(st, call("read_file", file_path=f"f{turn}.py"))
        if len(utility.calls) == 2:
            break
    # first check at turn 1 with confidence 0 -> next after the max interval (15)
    assert st.turn == 16
    assert detector.detections == []


def test_code_in_a_reply_cut_at_its_closing_fence_is_never_read_as_prose():
    # the test-driven fixer's calls pass through every middleware (acode.agent.loop.solver_door); its
    # replies stop at the file's closing fence, so each one ends inside the block it opened. The next
    # reply's opening fence must open a block again, not close the last one and read the code as chanting.
    body = "".join(f"    if unit == {i}:\n        raise ValueError(f'bad unit in {{text!r}}: {{unit}}')\n"
                   for i in range(12))
    reply = Completion(text=f"calc.py\n```python\ndef parse(text, unit):\n{body}    return text\n")
    detector = LoopDetection()
    run_turns(detector, state(), [reply, reply, reply])
    assert detector.detections == []
