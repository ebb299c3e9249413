"""The ReAct loop with the scripted model: answers, tool results reaching the model, limits, parallel
reads, Ctrl-C, and the middleware hooks in order."""

from __future__ import annotations

import json

from tests.helpers.agent_fakes import BrokenTool, InterruptingTool, SlowReadTool, make_loop, new_state

from acode.agent.loop.middleware import Middleware, ToolDecision
from acode.agent.loop.stops import AgentStop, LoopDetected
from acode.errors import ModelOutputError, ModelTimeoutError
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Completion, ToolCall, Usage


def tool_step(name, **arguments):
    return {"tool": name, "arguments": arguments}


def test_reason_act_observe_until_plain_answer(tmp_path, scripted):
    (tmp_path / "a.txt").write_text("alpha")
    model = scripted(tool_step("read_file", file_path="a.txt"), "The file says alpha.")
    loop = make_loop(model, tmp_path)
    state = new_state(loop)
    result = loop.run(state, "what is in a.txt?")

    assert result.ok and result.answer == "The file says alpha."
    assert result.turns == 2
    assert [s.type for s in result.trajectory] == ["model", "tool", "model"]
    tool = result.tool_steps()[0]
    assert tool.name == "read_file" and tool.ok and tool.output == "alpha"
    # the second model call saw the tool result
    second_call = model.calls[1]["messages"]
    assert second_call[-1].role == "tool" and second_call[-1].content.startswith(
        "alpha\n(Task: what is in a.txt?"
    )
    assert [m.role for m in state.history] == ["system", "user", "assistant", "tool", "assistant"]
    # the model was offered the registry's tools on every call
    assert {t.name for t in model.calls[0]["tools"]} == {"read_file", "write_file", "run_shell_command"}
    assert result.tokens.prompt_tokens > 0


def test_tool_errors_reach_the_model_as_structured_results(tmp_path, scripted):
    model = scripted(
        tool_step("read_file", file_path="missing.txt"),
        tool_step("broken"),
        "done",
    )
    loop = make_loop(model, tmp_path, BrokenTool())
    result = loop.run(new_state(loop), "go")

    assert result.ok
    missing, broken = result.tool_steps()
    assert json.loads(missing.output) == {"error": "File not found: missing.txt"}
    assert "RuntimeError: boom" in json.loads(broken.output)["error"]
    assert model.calls[1]["messages"][-1].content == missing.output
    assert result.stop_reason == "answer"  # tool errors are not format errors


def test_unknown_tool_and_invalid_arguments_are_format_errors_with_a_limit(tmp_path, scripted):
    model = scripted(
        tool_step("read_fil", file_path="a"),
        tool_step("read_file"),
        tool_step("write_file", file_path="x"),
        "never reached",
    )
    loop = make_loop(model, tmp_path, max_format_errors=3)
    result = loop.run(new_state(loop), "go")

    assert result.stop_reason == "format_errors"
    assert "3 invalid answers in a row" in result.message
    unknown, missing_arg, bad_write = result.tool_steps()
    assert "Did you mean 'read_file'" in unknown.output and unknown.decision == "invalid"
    assert "file_path" in missing_arg.output and "content" in bad_write.output
    assert model.remaining == 1


def test_a_valid_call_resets_the_format_error_count(tmp_path, scripted):
    (tmp_path / "a").write_text("x")
    model = scripted(
        tool_step("nope"),
        tool_step("nope"),
        tool_step("read_file", file_path="a"),
        tool_step("nope"),
        tool_step("nope"),
        "finished",
    )
    loop = make_loop(model, tmp_path, max_format_errors=3)
    assert loop.run(new_state(loop), "go").answer == "finished"


def test_unparseable_answers_go_back_to_the_model(tmp_path, scripted):
    model = scripted(
        Completion(text='{"tool": "read_file", "argu', finish_reason="length"),
        "",
        ModelOutputError("ACODE-MODEL-010", "not valid JSON"),
        "ok",
    )
    loop = make_loop(model, tmp_path, max_format_errors=4)
    result = loop.run(new_state(loop), "go")
    assert result.answer == "ok"
    problems = [s.format_error for s in result.model_steps()]
    assert "cut off" in problems[0] and "empty answer" in problems[1] and problems[2] == "not valid JSON"
    feedback = model.calls[1]["messages"][-1]
    assert feedback.role == "user" and "error" in json.loads(feedback.content)


def test_envelopes_left_in_text_are_parsed(tmp_path, scripted):
    (tmp_path / "a").write_text("A")
    model = scripted('{"tool": "read_file", "arguments": {"file_path": "a"}}', '{"answer": "it is A"}')
    loop = make_loop(model, tmp_path)
    result = loop.run(new_state(loop), "go")
    assert result.answer == "it is A" and result.tool_steps()[0].output == "A"


def test_turn_limit(tmp_path, scripted):
    (tmp_path / "a").write_text("A")
    model = scripted(*[tool_step("read_file", file_path="a")] * 5, "late")
    loop = make_loop(model, tmp_path, max_turns=3)
    result = loop.run(new_state(loop), "go")
    assert result.stop_reason == "max_turns" and result.turns == 3
    assert len(result.tool_steps()) == 3 and model.remaining == 3


def test_time_limit(tmp_path, scripted):
    (tmp_path / "a").write_text("A")
    model = scripted(
        {"sleep": 0.3, "tool": "read_file", "arguments": {"file_path": "a"}},
        {"sleep": 0.3, "tool": "read_file", "arguments": {"file_path": "a"}},
        "late",
    )
    loop = make_loop(model, tmp_path, max_seconds=0.2)
    result = loop.run(new_state(loop), "go")
    assert result.stop_reason == "timeout" and result.turns == 1
    assert "agent.max_seconds" in result.message


def test_model_failure_ends_the_run_with_a_reason(tmp_path, scripted):
    loop = make_loop(scripted({"error": "server down"}), tmp_path)
    result = loop.run(new_state(loop), "go")
    assert result.stop_reason == "model_error" and "server down" in result.message


def test_consecutive_read_only_calls_run_in_parallel_and_edits_in_order(tmp_path, scripted):
    slow = SlowReadTool()
    calls = [ToolCall(name="slow_read", arguments={"seconds": 0.3}) for _ in range(3)]
    calls.append(ToolCall(name="write_file", arguments={"file_path": "o.txt", "content": "1"}))
    calls.append(ToolCall(name="write_file", arguments={"file_path": "o.txt", "content": "2"}))
    model = scripted(Completion(tool_calls=calls), "done")
    loop = make_loop(model, tmp_path, slow)
    result = loop.run(new_state(loop), "go")

    assert slow.max_active == 3  # the three reads overlapped
    assert (tmp_path / "o.txt").read_text() == "2"  # the edits ran in the order given
    assert [s.call_id for s in result.tool_steps()] == [c.id for c in calls]
    tool_messages = [m for m in model.calls[1]["messages"] if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == [c.id for c in calls]


def test_ctrl_c_during_a_tool_keeps_a_consistent_session(tmp_path, scripted):
    calls = [
        ToolCall(name="interrupting", arguments={}),
        ToolCall(name="read_file", arguments={"file_path": "a"}),
    ]
    model = scripted(Completion(tool_calls=calls))
    loop = make_loop(model, tmp_path, InterruptingTool())
    state = new_state(loop)
    result = loop.run(state, "go")

    assert result.stop_reason == "interrupted" and "interrupting" in result.message
    tool_messages = [m for m in state.history if m.role == "tool"]
    assert [m.tool_call_id for m in tool_messages] == [c.id for c in calls]
    assert all("cancelled" in m.content for m in tool_messages)
    # the same state takes the next prompt
    model.push("resumed fine")
    assert loop.send(state, "carry on").answer == "resumed fine"


def test_ctrl_c_during_the_model_call(tmp_path, scripted):
    def ctrl_c(messages, tools, schema):
        raise KeyboardInterrupt

    model = scripted(ctrl_c, "second try")
    loop = make_loop(model, tmp_path)
    state = new_state(loop)
    first = loop.send(state, "go")
    assert first.stop_reason == "interrupted" and "model call" in first.message
    assert loop.send(state, "again").answer == "second try"


class Recorder(Middleware):
    name = "recorder"

    def __init__(self, log):
        self.log = log

    def on_session_start(self, state):
        self.log.append("start")

    def on_user_prompt(self, state, prompt):
        self.log.append(f"prompt:{prompt}")
        return prompt + " (with context)"

    def before_model(self, state):
        self.log.append(f"before_model:{state.turn}")

    def after_model(self, state, completion):
        self.log.append("after_model")

    def before_tool(self, state, call):
        self.log.append(f"before_tool:{call.name}")

    def after_tool(self, state, call, result):
        self.log.append(f"after_tool:{call.name}")

    def on_final_answer(self, state, text):
        self.log.append("final")

    def on_session_end(self, state, reason):
        self.log.append(f"end:{reason}")


def test_middleware_hooks_are_called_in_order(tmp_path, scripted):
    (tmp_path / "a").write_text("A")
    log: list[str] = []
    model = scripted(tool_step("read_file", file_path="a"), "done")
    loop = make_loop(model, tmp_path, middlewares=[Recorder(log)])
    loop.run(new_state(loop), "go")
    assert model.calls[0]["messages"][-1].content == "go (with context)"
    assert log == [
        "start",
        "prompt:go",
        "before_model:1",
        "after_model",
        "before_tool:read_file",
        "after_tool:read_file",
        "before_model:2",
        "after_model",
        "final",
        "end:answer",
    ]


class Steering(Middleware):
    """Denies shell, rewrites reads, replaces a result, and asks to continue once."""

    name = "steering"

    def __init__(self):
        self.continued = False

    def before_tool(self, state, call):
        if call.name == "run_shell_command":
            return ToolDecision("deny", "hook says no")
        if call.name == "read_file":
            return ToolDecision(rewritten_arguments={"file_path": "b"})
        return None

    def after_tool(self, state, call, result):
        if call.name == "read_file":
            return result.model_copy(update={"output": result.output.upper()})
        return None

    def on_final_answer(self, state, text):
        if not self.continued:
            self.continued = True
            return "Please continue."
        return None


def test_middlewares_can_deny_rewrite_replace_and_continue(tmp_path, scripted):
    (tmp_path / "b").write_text("bee")
    model = scripted(
        tool_step("run_shell_command", command="ls"),
        tool_step("read_file", file_path="a"),
        "Next I will finish.",
        "finished",
    )
    loop = make_loop(model, tmp_path, middlewares=[Steering()])
    result = loop.run(new_state(loop, mode="yolo"), "go")
    shell, read = result.tool_steps()
    assert shell.decision == "denied" and json.loads(shell.output) == {"error": "hook says no"}
    assert read.arguments == {"file_path": "b"} and read.output == "BEE"
    assert result.answer == "finished" and model.calls[3]["messages"][-1].content == "Please continue."


class StopAfterFirstModelCall(Middleware):
    def after_model(self, state, completion):
        raise LoopDetected("tool_calls", "same call 5 times", partial="partial work")


def test_a_middleware_stop_ends_the_run_with_its_reason(tmp_path, scripted):
    loop = make_loop(
        scripted(tool_step("read_file", file_path="a")), tmp_path, middlewares=[StopAfterFirstModelCall()]
    )
    result = loop.run(new_state(loop), "go")
    assert result.stop_reason == "loop_detected" and result.answer == "partial work"
    custom = AgentStop("hook asked to stop", reason="hook_stop")
    assert custom.reason == "hook_stop" and custom.partial == ""


class TimeoutSpy(ScriptedModel):
    def complete(self, messages, **kwargs):
        self.timeouts = [*getattr(self, "timeouts", []), kwargs["timeout"]]
        return super().complete(messages, **kwargs)


def test_the_time_budget_bounds_the_model_timeout(tmp_path):
    model = TimeoutSpy(["ok"])
    loop = make_loop(model, tmp_path, max_seconds=50, model_timeout=500)
    loop.run(new_state(loop), "go")
    assert 0 < model.timeouts[0] <= 50


def test_a_model_call_cut_by_its_timeout_is_still_a_recorded_model_step(tmp_path):
    """Issue 29: on a real project a first call ran into the model timeout after 840 s and the trajectory
    (and --json) showed no model step at all: not its prompt's size, not what it was writing."""
    cut = ModelTimeoutError("ACODE-MODEL-023", "timed out after 840 s while generating")
    cut.partial = Completion(text="src/app.py\n```python\ndef f(", usage=Usage(prompt_tokens=4665,
                             completion_tokens=7), finish_reason="timeout")
    loop = make_loop(ScriptedModel([cut]), tmp_path)
    result = loop.run(new_state(loop), "go")
    assert result.stop_reason == "model_error" and "timed out" in result.message
    steps = result.model_steps()
    assert len(steps) == 1 and steps[0].finish_reason == "timeout"
    assert steps[0].usage.prompt_tokens == 4665 and steps[0].usage.completion_tokens == 7
    assert steps[0].text.endswith("def f(") and result.tokens.prompt_tokens == 4665
    # a backend that knows nothing of the call still leaves the step, with its seconds
    loop = make_loop(ScriptedModel([ModelTimeoutError("ACODE-MODEL-023", "timed out")]), tmp_path)
    bare = loop.run(new_state(loop), "go").model_steps()
    assert [s.finish_reason for s in bare] == ["timeout"] and bare[0].seconds >= 0


def test_a_call_repeating_the_previous_successful_step_is_not_run_again(tmp_path, scripted):
    write = tool_step("run_shell_command", command="python hello.py")
    model = scripted(write, write, write, tool_step("read_file", file_path="x"), write, "done")
    loop = make_loop(model, tmp_path)
    result = loop.run(new_state(loop), "go")
    assert loop.ctx.state["ran"] == ["python hello.py", "python hello.py"]  # first, and after another step
    decisions = [s.decision for s in result.tool_steps()]
    assert decisions == ["allowed", "repeated", "repeated", "allowed", "allowed"]
    guard = json.loads(result.tool_steps()[1].output)["error"]
    assert "not run again" in guard and "ran python hello.py" in guard
    assert "The user asked: 'go'" in guard  # the request is quoted back to a model that lost its way
    offered = [sorted(t.name for t in call["tools"]) for call in model.calls]
    everything = ["read_file", "run_shell_command", "write_file"]
    without_shell = ["read_file", "write_file"]
    # after each repeat the tools of the repeated kind (here: execute) are left out of the next call only
    assert offered == [everything, everything, without_shell, without_shell, everything, everything]
    assert result.ok


def test_tool_schemas_reach_the_model_without_pydantic_titles(tmp_path, scripted):
    model = scripted("hi")
    loop = make_loop(model, tmp_path)
    loop.run(new_state(loop), "go")
    write = next(t for t in model.calls[0]["tools"] if t.name == "write_file")
    assert write.parameters["required"] == ["file_path", "content"]
    assert "title" not in json.dumps(write.parameters)


def test_after_a_repeated_edit_no_edit_tool_is_offered_for_one_call(tmp_path, scripted):
    write = tool_step("write_file", file_path="a.py", content="print(1)")
    model = scripted(write, write, tool_step("run_shell_command", command="python a.py"), "It printed 1.")
    loop = make_loop(model, tmp_path)
    result = loop.run(new_state(loop), "create a.py and run it")
    offered = [sorted(t.name for t in call["tools"]) for call in model.calls]
    assert offered[2] == ["read_file", "run_shell_command"]
    assert offered[3] == offered[0] and len(offered[0]) == 3
    assert result.answer == "It printed 1." and loop.ctx.state["ran"] == ["python a.py"]


def test_successful_results_remind_the_model_of_the_request_and_progress(tmp_path, scripted):
    (tmp_path / "a").write_text("A")
    model = scripted(
        tool_step("read_file", file_path="a"),
        tool_step("read_file", file_path="missing"),
        tool_step("run_shell_command", command="python a"),
        "done",
    )
    loop = make_loop(model, tmp_path)
    loop.run(new_state(loop), "read a then run it")
    tool_messages = [m.content for m in model.calls[3]["messages"] if m.role == "tool"]
    assert tool_messages[0] == (
        "A\n(Task: read a then run it. Done so far: read_file a. "
        "Take the next step, or answer if the task is done.)"
    )
    assert json.loads(tool_messages[1])["error"].startswith("File not found")  # errors stay plain JSON
    assert "Done so far: read_file a; run_shell_command python a." in tool_messages[2]

    quiet = make_loop(scripted(tool_step("read_file", file_path="a"), "done"), tmp_path, remind_request=False)
    quiet.run(new_state(quiet), "read a")
    assert quiet.model.calls[1]["messages"][-1].content == "A"
