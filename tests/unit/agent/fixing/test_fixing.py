"""Test-driven fixing: when it applies, how it reads the model's whole-file replies and the test runs,
and the loop's decisions (attempt limits, restoring files, a failing candidate never reported as
success), with the scripted model and the real built-in tools on a real pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply, session

from acode.agent.fixing.detect import command_in_request, is_test_file, plan_fix
from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.localise.locate import locate
from acode.agent.fixing.outcome import implicated_files, read_outcome
from acode.agent.fixing.rewrite import parse_reply
from acode.llm.scripted import ScriptedModel


# -- when it applies -----------------------------------------------------------------------------
def test_the_request_can_name_its_test_command():
    assert command_in_request("Fix it (run them with: python -m pytest -q). Thanks") == "python -m pytest -q"
    assert command_in_request("the bug makes `pytest tests/test_x.py -x` fail") == "pytest tests/test_x.py -x"
    assert command_in_request("run `rm -rf /` to fix it") is None
    assert command_in_request("fix the bug") is None


def test_a_test_command_may_name_the_project_environments_python_by_its_path():
    request = ("These tests fail: tests/test_a.py::test_b. Fix the bug (run them with: "
               "/work/env/bin/python3.11 -m pytest -q tests/test_a.py::test_b)")
    assert command_in_request(request) == "/work/env/bin/python3.11 -m pytest -q tests/test_a.py::test_b"
    venv_python = "run `.venv/bin/python -m pytest -x` and fix it"
    assert command_in_request(venv_python) == ".venv/bin/python -m pytest -x"
    assert command_in_request("run `/tmp/evil/bin/sh -m pytest` to fix it") is None


def test_a_plan_needs_a_change_request_and_a_test_command(project):
    plan = plan_fix(REQUEST, project)
    assert plan is not None and plan.test_command == "python -m pytest -q test_calc.py"  # the named tests
    assert plan_fix("fix the bug in calc.py", project).test_command == "python -m pytest -q"  # discovered
    assert [p.as_posix() for p in plan.targets] == ["calc.py"]
    assert [p.as_posix() for p in plan.protected] == ["test_calc.py"]
    assert plan_fix("explain what calc.py does", project) is None
    (project / "test_calc.py").unlink()
    assert plan_fix("fix the bug in calc.py", project) is None  # no tests anywhere: nothing can judge a fix


def test_test_files_are_recognised():
    assert is_test_file(Path("test_x.py")) and is_test_file(Path("pkg/x_test.py"))
    assert is_test_file(Path("tests/helpers.py")) and not is_test_file(Path("src/contest.py"))


# -- reading test runs and replies ---------------------------------------------------------------
def test_a_test_run_is_read_from_the_shell_tool_output(project):
    output = (
        '$ pytest\n(in .)\nF.\n  File "calc.py", line 2, in add\ntest_calc.py:5: AssertionError\n'
        "1 failed, 1 passed in 0.02s\n[exit code: 1]"
    )
    outcome = read_outcome(output)
    assert (outcome.exit_code, outcome.passed, outcome.failed, outcome.ok) == (1, 1, 1, False)
    assert [p.as_posix() for p in implicated_files(output, project)] == ["calc.py", "test_calc.py"]
    (project / "test_calc.py").write_text(TESTS)
    located = locate("", {Path("test_calc.py"): {"test_add"}}, project)
    assert [f.path.as_posix() for f in located] == ["calc.py"]
    assert read_outcome("1 passed\n[exit code: 0]").better_than(outcome)
    # a candidate's run killed when it hung counted nothing: never better than the original's failure
    hung = read_outcome("$ pytest\n(in .)\n[still running after 20s: the command's process group was "
                        "killed]\n[killed by signal SIGTERM]")
    assert not hung.better_than(read_outcome("1 failed in 0.7s\n[exit code: 1]"))
    assert read_outcome("1 failed in 0.7s\n[exit code: 1]").better_than(hung)
    assert not read_outcome("$ x\nbash: x: command not found\n[exit code: 127]").runnable


def test_replies_are_read_as_whole_files():
    view = FileView("calc.py", BUGGY)
    assert parse_reply(reply(FIXED), [view]) == {"calc.py": FIXED}
    assert parse_reply(f"Here it is:\n```python\n{FIXED}```", [view]) == {"calc.py": FIXED}  # unlabelled
    assert parse_reply(reply(FIXED, "**calc.py**:"), [view]) == {"calc.py": FIXED}
    assert "syntax error at line 1" in parse_reply(reply("def add(a, b)\n    return a + b\n"), [view])
    assert "no fenced code block" in parse_reply("return a + b", [view])
    assert "unchanged" in parse_reply(reply(BUGGY), [view])
    assert "unchanged" in parse_reply(reply(BUGGY + "\n\n"), [view])  # whitespace at the end is no change
    assert "without any of its functions" in parse_reply(reply("x = 1\n"), [view])
    # seen with the 0.5B and the 1.5B: the tests' import line copied into the module (a circular import)
    assert parse_reply(reply("from calc import add\n\n\n" + FIXED), [view]) == {"calc.py": FIXED}
    long = FileView("big.py", "x = 1\n" * 40)
    assert "only the changed part" in parse_reply(reply("x = 2\n", "big.py"), [long])


# -- the loop's decisions ------------------------------------------------------------------------
def test_a_failing_candidate_is_fed_back_and_the_passing_one_kept(project):
    wrong = [BUGGY.replace("a - b", "a * b"), BUGGY.replace("a - b", "a ** b")]
    model = ScriptedModel([reply(wrong[0]), reply(wrong[1]), reply(FIXED)])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    assert (
        result.stop_reason == "answer" and "passes now" in result.answer and "attempt 3 of 4" in result.answer
    )
    assert (project / "calc.py").read_text() == FIXED
    assert (project / "test_calc.py").read_text() == TESTS  # the specification is never rewritten
    tools = [(t.name, t.ok) for t in result.tool_steps()]
    assert tools == [("run_shell_command", True)] + [("write_file", True), ("run_shell_command", True)] * 3
    # the one call, then the fixer's own framing, then its failure fed back (all greedy)
    assert [m.role for m in model.calls[1]["messages"]] == ["system", "user"]
    third_prompt = model.calls[2]["messages"]
    assert "still fails" in third_prompt[-1].content and "assert 8 == 5" in third_prompt[-1].content
    assert third_prompt[:2] == model.calls[1]["messages"]  # the framing's prefix stays the same (KV reuse)
    assert [c["temperature"] for c in model.calls] == [0.0, 0.0, 0.0]


def test_after_the_attempt_limit_the_files_are_restored_and_the_run_fails(project):
    wrong = [BUGGY.replace("a - b", op) for op in ("a * b", "a ** b", "b - a")]
    model = ScriptedModel([reply(w) for w in wrong] + ["never asked"])
    s = session(project, model, max_attempts=3)
    result = s.send(REQUEST)
    s.close()
    assert result.stop_reason == "tests_failing" and not result.ok
    assert "still fails after 3 candidate" in result.message and "as they were" in result.message
    assert len(result.model_steps()) == 3 and model.remaining == 1
    assert (project / "calc.py").read_text() == BUGGY


def test_a_candidate_that_passes_more_tests_is_kept_but_not_called_a_success(project):
    (project / "calc.py").write_text(BUGGY.replace("2 * x", "3 * x"))  # both tests fail
    better = BUGGY  # fixes double only
    model = ScriptedModel([reply(better), reply(better.replace("2 * x", "4 * x"))])
    s = session(project, model, max_attempts=2)
    result = s.send(REQUEST)
    s.close()
    assert result.stop_reason == "tests_failing" and "Kept the version that does best" in result.message
    assert (project / "calc.py").read_text() == better


def test_a_candidate_with_a_syntax_error_is_never_written(project):
    model = ScriptedModel([reply("def add(a, b)\n    return a + b\n"), reply(FIXED)])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    writes = [t for t in result.tool_steps() if t.name == "write_file"]
    assert len(writes) == 1 and writes[0].arguments["content"] == FIXED
    # no candidate: the next call is the next framing, not an argument with the reply
    assert model.calls[1]["messages"][0].role == "system" and "syntax" not in str(model.calls[1]["messages"])
    assert result.ok and "attempt 1 of 4" in result.answer


def test_in_default_mode_a_refused_test_run_leaves_the_request_to_the_tool_loop(project):
    model = ScriptedModel(["I may not run the tests here."])
    s = session(project, model, mode="default")
    result = s.send(REQUEST)
    s.close()
    assert result.answer == "I may not run the tests here."
    assert [t.decision for t in result.tool_steps()] == ["denied"]
    assert (project / "calc.py").read_text() == BUGGY


def test_questions_and_plan_mode_go_to_the_tool_loop(project):
    for mode, prompt in (("yolo", "explain what calc.py does"), ("plan", REQUEST)):
        model = ScriptedModel(["It adds."])
        s = session(project, model, mode=mode)
        result = s.send(prompt)
        s.close()
        assert result.answer == "It adds." and not result.tool_steps()


# -- whole-file plan steps (acode run's executor) --------------------------------------------------
def step_loop(root: Path, model, paths: list[str], context: list[str] | None = None):
    from acode.agent.loop.agent_loop import AgentLoop
    from acode.pipeline.step_writer import StepWriter
    from acode.tools.base import ToolContext
    from acode.tools.builtin import default_registry

    solver = StepWriter(paths, context) if context else StepWriter(paths)
    loop = AgentLoop(model, default_registry(), ToolContext(workspace=root), solver=solver)
    return loop, loop.new_state("system", session_id="t", approval_mode="yolo")


def test_a_step_writes_its_files_whole_in_one_call(project):
    from acode.pipeline.step_writer import step_files

    paths = step_files("Add is_even to calc.py and a test in test_even.py", project)
    assert paths == ["calc.py", "test_even.py"]
    new_calc = FIXED + "\n\ndef is_even(n):\n    return n % 2 == 0\n"
    test = "from calc import is_even\n\n\ndef test_is_even():\n    assert is_even(2)\n"
    model = ScriptedModel([f"calc.py\n```python\n{new_calc}```\n\ntest_even.py\n```python\n{test}```\n"])
    loop, state = step_loop(project, model, paths)
    result = loop.run(state, "Carry out step 1: add is_even to calc.py with a test in test_even.py")
    assert result.ok and result.answer == "Wrote calc.py, test_even.py."
    assert (project / "calc.py").read_text() == new_calc and (project / "test_even.py").read_text() == test
    assert "Current content of calc.py" in model.calls[0]["messages"][1].content
    assert "test_even.py does not exist yet" in model.calls[0]["messages"][1].content


def test_a_step_that_writes_one_file_stops_at_its_closing_fence(project):
    """As the test-driven fixer: the stop string ends generation after the one block asked for, and the
    block cut there is closed again before it is read."""
    new_calc = FIXED + "\n\ndef is_even(n):\n    return n % 2 == 0\n"
    chatty = reply(new_calc) + "\nI added is_even. The tests:\n```python\n" + TESTS + "```\n" * 5
    model = ScriptedModel([chatty])
    loop, state = step_loop(project, model, ["calc.py"])
    result = loop.run(state, "Carry out step 1: add is_even to calc.py")
    assert model.calls[0]["stop"] == ["\n```\n"]
    assert result.ok and result.answer == "Wrote calc.py." and len(model.calls) == 1
    assert (project / "calc.py").read_text() == new_calc
    text = result.model_steps()[0].text
    assert "I added" not in text and text.rstrip().endswith("return n % 2 == 0")


def test_a_step_for_a_file_without_a_fence_tag_is_not_cut_at_its_opening_fence(project):
    """setup.cfg has no language tag, so its block opens with a bare fence, the same text as the stop."""
    (project / "setup.cfg").write_text("[metadata]\nname = calc\n")
    config = "[metadata]\nname = calc\nversion = 1.0\n"
    model = ScriptedModel([f"setup.cfg\n```\n{config}```\n"])
    loop, state = step_loop(project, model, ["setup.cfg"])
    result = loop.run(state, "Carry out step 1: add version = 1.0 to setup.cfg")
    assert model.calls[0]["stop"] == []
    assert result.ok and result.answer == "Wrote setup.cfg.", result.message
    assert (project / "setup.cfg").read_text() == config


def test_files_the_task_names_but_the_step_does_not_are_shown_and_not_asked_for(project):
    from acode.pipeline.step_writer import targets_and_context

    task = "add is_even to calc.py and a pytest test for it in test_even.py"
    step = "Add a test of is_even in test_even.py"
    targets, context = targets_and_context(step, task, project)
    assert (targets, context) == (["test_even.py"], ["calc.py"])
    assert targets_and_context("Add is_even", task, project) == (["calc.py", "test_even.py"], [])
    test = "from calc import is_even\n\n\ndef test_is_even():\n    assert is_even(2)\n"
    model = ScriptedModel([reply(test, "test_even.py") + "\ncalc.py\n```python\n" + BUGGY + "```\n"])
    loop, state = step_loop(project, model, targets, context)
    result = loop.run(state, step)
    prompt = model.calls[0]["messages"][1].content
    assert "calc.py (as it is; not to be rewritten in this step)" in prompt and BUGGY in prompt
    assert prompt.rstrip().endswith("Reply with the whole new content of test_even.py.")
    assert model.calls[0]["stop"] == ["\n```\n"]  # one file asked for
    assert result.answer == "Wrote test_even.py." and (project / "test_even.py").read_text() == test
    assert (project / "calc.py").read_text() == BUGGY


def test_every_step_starts_with_the_same_system_prompt(project):
    """The next step's call reuses the prefix it shares with the last one from the KV cache: the system
    prompt must not name the step's own files."""
    model = ScriptedModel([reply(FIXED), reply("x = 1\n", "new.py")])
    for paths in (["calc.py"], ["new.py"]):
        loop, state = step_loop(project, model, paths)
        loop.run(state, "a step")
    first, second = (call["messages"][0].content for call in model.calls)
    assert first == second and "calc.py" not in first


def test_an_unusable_step_reply_is_asked_again_then_left_to_the_tool_loop(project):
    broken = "calc.py\n```python\ndef add(a, b)\n```\n"
    model = ScriptedModel([broken, broken, "I could not do it."])
    loop, state = step_loop(project, model, ["calc.py"])
    result = loop.run(state, "Carry out step 1: fix add in calc.py")
    assert "syntax error" in model.calls[1]["messages"][-1].content
    assert result.answer == "I could not do it." and (project / "calc.py").read_text() == BUGGY
    assert not result.tool_steps()


def test_step_files_skip_hidden_folders_and_files_too_long_to_rewrite(project):
    from acode.pipeline.step_writer import MAX_FILE_LINES, step_files

    (project / "big.py").write_text("x = 1\n" * (MAX_FILE_LINES + 1))
    assert step_files("edit big.py, .acode/x.py and ../out.py and calc.py", project) == ["calc.py"]


def test_a_bare_file_name_finds_the_one_project_file_of_that_name(git_repo):
    (git_repo / "src" / "pkg").mkdir(parents=True)
    (git_repo / "src" / "pkg" / "parser.py").write_text("def parse(s):\n    return s\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_parser.py").write_text("from pkg.parser import parse\n")
    plan = plan_fix("Fix the bug in parser.py so that tests/test_parser.py passes", git_repo)
    assert [p.as_posix() for p in plan.targets] == ["src/pkg/parser.py"]
    assert [p.as_posix() for p in plan.protected] == ["tests/test_parser.py"]


def test_a_reply_with_only_some_functions_is_merged_into_the_file():
    from acode.agent.fixing.merge import merge_partial

    old = "import os\n\n\ndef add(a, b):\n    return a - b\n\n\n@cache\ndef double(x):\n    return 2 * x\n"
    only_fix = "def add(a, b):\n    return a + b\n"
    assert merge_partial(old, only_fix) == old.replace("a - b", "a + b")
    only_new = "import math\n\n\ndef root(x):\n    return math.sqrt(x)\n"
    merged = merge_partial(old, only_new)
    assert merged.startswith("import os\nimport math\n") and merged.rstrip().endswith("return math.sqrt(x)")
    assert "def add" in merged and "@cache\ndef double" in merged
    whole = old.replace("2 * x", "x + x")
    assert merge_partial(old, whole) == whole
    view = FileView("calc.py", BUGGY)
    assert parse_reply(reply("def add(a, b):\n    return a + b\n"), [view]) == {"calc.py": FIXED}


def test_methods_are_merged_into_their_class():
    from acode.agent.fixing.merge import merge_partial

    old = (
        "class Shape:\n    def __init__(self, w):\n        self.w = w\n\n    def area(self):\n"
        "        return self.w * 2\n\n    def name(self):\n        return 'shape'\n\n\ndef helper():\n    "
        "return 1\n"
    )
    fixed = old.replace("self.w * 2", "self.w ** 2")
    assert merge_partial(old, "def area(self):\n    return self.w ** 2\n") == fixed
    assert merge_partial(old, "class Shape:\n    def area(self):\n        return self.w ** 2\n") == fixed
    added = merge_partial(old, "class Shape:\n    def perimeter(self):\n        return 4 * self.w\n")
    assert "    def name(self):\n        return 'shape'\n\n    def perimeter(self):\n" in added
    assert added.rstrip().endswith("return 1") and compile(added, "x", "exec")


def test_a_long_file_is_fixed_from_a_reply_with_only_the_changed_function(project):
    filler = "".join(f"\n\ndef f{i}():\n    return {i}\n" for i in range(60))
    (project / "calc.py").write_text(BUGGY + filler)
    model = ScriptedModel([reply("def add(a, b):\n    return a + b\n")])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    assert result.ok, result.message
    assert "leave out the ones you do not change" in model.calls[0]["messages"][-1].content
    assert (project / "calc.py").read_text() == FIXED + filler


# -- issue 29: the one call first, no echo as a candidate, the stop, the module's own examples -----------
def test_the_first_call_is_the_one_call_and_its_passing_answer_is_kept(project):
    model = ScriptedModel([reply(FIXED)])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and "attempt 1 of 4" in result.answer and len(result.model_steps()) == 1
    first = model.calls[0]
    assert first["temperature"] == 0.0 and [m.role for m in first["messages"]] == ["user"]
    prompt = first["messages"][0].content
    # the one-call layout: the request, the file, the tests, the failure and the instruction last
    order = [prompt.index(part) for part in (REQUEST, "def add(a, b):", "def test_add", "prints:")]
    assert order == sorted(order)
    assert prompt.endswith("Reply with the whole corrected calc.py in one ```python block.")


def test_an_echoed_or_unchanged_reply_is_never_a_candidate(project):
    commented = "# calc\n" + BUGGY.replace("return a - b", "return a - b  # the sum")  # only comments
    copies_tests = f"```python\n{TESTS}```\n\ncalc.py\n```python\n{FIXED}```\n"  # the prompt's tests first
    model = ScriptedModel([reply(BUGGY), reply(commented), copies_tests, reply(FIXED)])
    s = session(project, model, sample_after_echoes=True)
    result = s.send(REQUEST)
    s.close()
    writes = [t.arguments["content"] for t in result.tool_steps() if t.name == "write_file"]
    assert writes == [FIXED]  # neither the echoes nor the copied tests were written or tested
    assert result.ok and "attempt 1 of 4" in result.answer
    assert (project / "test_calc.py").read_text() == TESTS and (project / "calc.py").read_text() == FIXED
    # the two framings greedy, then (no candidate to feed back) samples of the last one, whose prompt is
    # still in the KV cache: never a greedy repeat (telling the 0.5B its reply was unchanged made it echo
    # more: 1 of 7 seeds solved against 5 of 7)
    assert [c["temperature"] > 0 for c in model.calls] == [False, False, True, True]
    assert model.calls[2]["messages"] == model.calls[3]["messages"] == model.calls[1]["messages"]


def test_when_every_framing_echoes_no_sample_is_spent_on_them(project):
    # the 1.5B: a framing whose greedy reply was the file unchanged echoed on every sample too (14 of 14)
    model = ScriptedModel([reply(BUGGY), reply(BUGGY + "\n"), reply(FIXED), reply(FIXED)])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    assert len(model.calls) == 2 and result.stop_reason == "tests_failing"
    assert "after 0 candidate" in result.message and (project / "calc.py").read_text() == BUGGY


def test_a_sample_goes_to_a_framing_that_did_not_echo(project):
    wrong = BUGGY.replace("a - b", "a * b")
    # the one call gives a wrong candidate, the fixer's framing echoes: the sample is of the one call's
    # framing (a different way), not of the echo's, even though the echo's prompt is the one cached
    model = ScriptedModel([reply(wrong), reply(BUGGY), reply(FIXED)])
    s = session(project, model, greedy_attempts=2)
    result = s.send(REQUEST)
    s.close()
    assert result.ok and "attempt 2 of 4" in result.answer
    assert model.calls[2]["temperature"] > 0 and model.calls[2]["messages"] == model.calls[0]["messages"]


def test_a_framing_that_repeats_a_tried_candidate_is_not_sampled(project):
    wrong = BUGGY.replace("a - b", "a * b")
    model = ScriptedModel([reply(BUGGY), reply(wrong), reply(wrong), reply(FIXED)])
    s = session(project, model, greedy_attempts=2)
    result = s.send(REQUEST)
    s.close()
    # the one call echoed, the fixer's framing gave a wrong candidate; its sample repeated it (not tested
    # again); the one call's framing echoed: nothing is left to sample. The wrong candidate is put back
    # through the write tool (the solver door's restore)
    writes = [t.arguments["content"] for t in result.tool_steps() if t.name == "write_file"]
    assert writes == [wrong, BUGGY] and len(model.calls) == 3 and result.stop_reason == "tests_failing"


def test_a_reply_that_appends_the_prompts_tests_is_the_file_unchanged(project):
    appended = BUGGY.rstrip() + "\n\n\n" + TESTS  # seen with the 0.5B: the file, then the prompt's tests
    model = ScriptedModel([reply(appended), reply(FIXED)])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    writes = [t.arguments["content"] for t in result.tool_steps() if t.name == "write_file"]
    assert writes == [FIXED] and result.ok and "attempt 1 of 4" in result.answer and len(model.calls) == 2


def test_only_echoes_end_as_no_candidate_tried(project):
    model = ScriptedModel([reply(BUGGY)] * 3)
    s = session(project, model, max_model_calls=3)
    result = s.send(REQUEST)
    s.close()
    assert result.stop_reason == "tests_failing" and "after 0 candidate" in result.message
    assert [t.name for t in result.tool_steps()] == ["run_shell_command"]
    assert (project / "calc.py").read_text() == BUGGY


def test_generation_stops_at_the_end_of_the_requested_block(project):
    chatty = reply(FIXED) + "\nThe tests in test_calc.py (read only):\n```python\n" + TESTS + "```\n" * 20
    model = ScriptedModel([chatty])
    s = session(project, model)
    result = s.send(REQUEST)
    s.close()
    assert model.calls[0]["stop"] == ["\n```\n"]
    step = result.model_steps()[0]
    assert step.text.rstrip().endswith("return 2 * x") and "read only" not in step.text
    assert result.ok and (project / "calc.py").read_text() == FIXED


def test_several_files_or_functions_are_not_stopped_after_the_first_block():
    from acode.agent.fixing.rewrite import close_fence, reply_stop

    one = [FileView("calc.py", BUGGY)]
    assert reply_stop(one, partial=False) == ["\n```\n"]
    assert reply_stop(one, partial=True) == [] and reply_stop(one * 2, partial=False) == []
    # a file without a fence tag opens its block with a bare fence: a stop there would end the reply
    assert reply_stop([FileView("setup.cfg", "[metadata]\n")], partial=False) == []
    assert close_fence("calc.py\n```python\nx = 1") == "calc.py\n```python\nx = 1\n```\n"
    assert close_fence(reply("x = 1\n")) == reply("x = 1\n")


def test_a_stop_string_cuts_the_text_as_a_backend_would():
    from acode.llm.embedded import _stopped
    from acode.llm.types import cut_at_stop

    assert cut_at_stop("a\n```\nrest", ["\n```\n"]) == "a" and cut_at_stop("abc", ["x"]) is None
    text = "calc.py\n```python\nx = 1\n```\n"
    assert _stopped(text, ["\n```\n"], new=len("`\n")) == "calc.py\n```python\nx = 1"
    assert _stopped("calc.py\n```python\n", ["\n```\n"], new=7) is None  # the opening fence has a language


EXAMPLES = '''def largest(values):
    """The largest of the values.

    >>> largest([3, 9, 4])
    9
    >>> largest([-5, -2])
    -2
    """
    best = 0
    for v in values:
        if v > best:
            best = v
    return best
'''
SHOWN = (
    "from big import largest\n\n\ndef test_largest():\n    assert largest([1, 2]) == 2\n"
    "    assert largest([]) == 0\n"
)


@pytest.mark.slow
def test_a_candidate_that_breaks_its_own_examples_is_not_the_answer(git_repo):
    (git_repo / "big.py").write_text(EXAMPLES.replace("v > best", "v < best"))  # returns 0 for [1, 2]
    (git_repo / "test_big.py").write_text(SHOWN)
    overfit = EXAMPLES  # the shown tests pass (they never see a negative list); its own example fails
    right = EXAMPLES.replace("    best = 0\n", "    best = values[0] if values else 0\n")
    model = ScriptedModel([reply(overfit, "big.py"), reply(overfit, "big.py"), reply(right, "big.py")])
    request = "The tests in test_big.py fail because big.py has a bug. Fix the bug in big.py."
    s = session(git_repo, model)
    result = s.send(request)
    s.close()
    assert result.ok and "attempt 2 of 4" in result.answer, result.answer
    assert (git_repo / "big.py").read_text() == right
    assert "examples in the docstrings of big.py fail" in model.calls[2]["messages"][-1].content
    commands = [t.arguments["command"] for t in result.tool_steps() if t.name == "run_shell_command"]
    assert sum("--doctest-modules big.py" in c for c in commands) == 2


def test_a_candidate_that_passes_only_the_tests_is_kept_when_nothing_passes_both(git_repo):
    (git_repo / "big.py").write_text(EXAMPLES.replace("v > best", "v < best"))
    (git_repo / "test_big.py").write_text(SHOWN)
    model = ScriptedModel([reply(EXAMPLES, "big.py")])
    s = session(git_repo, model, max_model_calls=1)
    result = s.send("The tests in test_big.py fail because big.py has a bug. Fix the bug in big.py.")
    s.close()
    assert result.ok and "docstring examples still fail" in result.answer
    assert (git_repo / "big.py").read_text() == EXAMPLES


def test_the_same_failure_gives_the_same_prompt_whatever_the_run_took():
    from acode.agent.fixing.outcome import trim_output

    def run(seconds: str, address: str) -> str:
        return (f"F\nE   AssertionError: <function add at {address}>\n"
                f"1 failed, 1 passed in {seconds}s\n[exit code: 1]")

    assert trim_output(run("0.05", "0x7f3a1c")) == trim_output(run("1.31", "0x7f99ee"))
    assert "1 failed, 1 passed\n" in trim_output(run("0.05", "0x1"))


def test_a_test_that_imports_many_modules_points_at_the_one_it_is_named_after(git_repo):
    from acode.agent.fixing.detect import FixPlan
    from acode.agent.fixing.localise.targets import choose_targets
    from acode.agent.fixing.outcome import TestOutcome

    for module in ("pkg/__init__.py", "pkg/util.py", "pkg/cli/__init__.py", "pkg/cli/parser.py"):
        (git_repo / "src" / module).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / "src" / module).write_text("def f():\n    return 1\n")
    (git_repo / "test_parser.py").write_text(
        "import os\nfrom pkg import util\nfrom pkg.cli import parser\n\n\ndef test_x():\n    pass\n"
    )
    plan = FixPlan("pytest", [], [Path("test_parser.py")])
    found = choose_targets(plan, TestOutcome("", 1), git_repo, max_lines=400, excerpt_lines=400)
    assert [t.whole.path for t in found] == ["src/pkg/cli/parser.py"]
    located = {f.path.as_posix() for f in locate("", {Path("test_parser.py"): set()}, git_repo)}
    assert located == {"src/pkg/util.py", "src/pkg/cli/parser.py"}


def test_a_request_that_names_only_a_failing_test_fixes_the_module_the_test_is_named_after(git_repo):
    for module, text in (("pkg/__init__.py", ""), ("pkg/util.py", "X = 1\n"), ("pkg/calc.py", BUGGY)):
        (git_repo / "src" / module).parent.mkdir(parents=True, exist_ok=True)
        (git_repo / "src" / module).write_text(text)
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_calc.py").write_text(
        "from pkg import util\n" + TESTS.replace("from calc import", "from pkg.calc import")
    )
    (git_repo / "pyproject.toml").write_text("[tool.pytest.ini_options]\npythonpath = ['src']\n")
    model = ScriptedModel([reply(FIXED, "src/pkg/calc.py")])
    s = session(git_repo, model)
    result = s.send("Make tests/test_calc.py pass: it fails.")
    s.close()
    assert result.ok, result.message
    assert (git_repo / "src/pkg/calc.py").read_text() == FIXED
    assert "Reply with the whole corrected src/pkg/calc.py in one" in model.calls[0]["messages"][0].content
