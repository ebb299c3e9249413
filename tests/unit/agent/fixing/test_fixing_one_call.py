"""The fixer's first call is the one call benchmarks/fix/fix_success.py measures acode against, byte for byte:
the same answer is then among acode's candidates and the tests judge it, so acode cannot end worse than
that call (issue 29)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from benchmarks.fix import fix_success

from acode.agent.session.agent_session import SessionOptions
from acode.agent.session.builder import build_session
from acode.config import Settings
from acode.llm.scripted import ScriptedModel

QUIET = {
    name: {"enabled": False} for name in ("next_speaker", "compression", "loop_detection", "checkpoints")
}


@pytest.mark.parametrize("task_id", ["Novel/13", "Novel/15"])
def test_the_first_call_is_the_benchmarks_one_call_byte_for_byte(task_id, tmp_path, monkeypatch):
    # the shell's `python` is the benchmark's, as fix_report.run_acode sets PATH for the acode arm
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    task = next(t for t in fix_success.load_tasks(half="odd", task_set="novel") if t.task_id == task_id)
    one_call = fix_success.oneshot_prompt(task, fix_success.visible_check(
        fix_success.make_workspace(task, tmp_path / "oneshot"))[1])
    root = fix_success.make_workspace(task, tmp_path / "acode")
    # every reply echoes the file: no candidate from the one call, its one-line asks or the fixer's framing
    model = ScriptedModel([f"```python\n{task.source}```\n"] * 10)
    # and no edit without a model either (Novel/13 has one that passes its shown tests)
    settings = Settings.model_validate({**QUIET, "agent": {"fix": {"mutants": 0, "deletions": 0}}})
    s = build_session(settings, root, SessionOptions(approval_mode="yolo"), model=model)
    result = s.send(task.prompt)
    s.close()
    assert result.stop_reason == "tests_failing"
    first = model.calls[0]
    assert [m.role for m in first["messages"]] == ["user"] and first["temperature"] == 0.0
    assert first["messages"][0].content == one_call
    # what the command printed, as anyone would paste it: no shell-tool frame, no duration
    assert "[exit code:" not in one_call and "(in .)" not in one_call and " failed in " not in one_call
    assert "```python\n" + task.source + "```\n" in one_call  # no blank line before the closing fence
    # the one-line ask is the same prompt but for its last instruction: a prompt cache reuses the rest
    # (after the function asks, when the clock leaves them room: test_fixing_function_asks.py)
    asks = [c["messages"][0].content for c in model.calls[1:]]
    line_ask = next(a for a in asks if "```diff" in a)
    instruction = one_call.rindex("\n\n") + 2
    assert line_ask[:instruction] == one_call[:instruction] and "```diff" in line_ask[instruction:]


def test_what_a_command_printed_is_read_without_the_shell_tools_frame():
    from acode.agent.fixing.outcome import printed

    framed = "$ python -m pytest -q\n(in .)\nF  [100%]\n[1] a list\n1 failed in 0.1s\n[exit code: 1]"
    assert printed(framed) == "F  [100%]\n[1] a list\n1 failed in 0.1s"
    killed = (
        "$ sleep 9\n(in sub)\n(no output)\n[no output for 5s: the command's process group was killed]\n"
        "[killed by signal 9]"
    )
    assert printed(killed) == "(no output)"
    over_time = ("$ pytest -q\n(in .)\n.\n[still running after 20s: the command's process group was killed]\n"
                 "[killed by signal SIGKILL]")
    assert printed(over_time) == "."
