"""`acode -p` tells the truth about how a run ended, through the CLI as a script sees it (issue 28 items
2-4): a run whose every edit was refused is a failure whatever the model says; an empty prompt is a usage
error before any model loads; every failure under --output-format json|stream-json reaches stdout."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.helpers.agent_cli import ACODE, cli_env, run_cli, write_script
from tests.helpers.stream_json import validator

UTIL = "def add(a, b):\n    return a + b\n"


def replace_in_util(old: str, new: str) -> dict:
    return {"tool": "replace", "arguments": {"file_path": "util.py", "old_string": old, "new_string": new}}


SUBTRACT = replace_in_util("a + b", "a - b")
MISSING = replace_in_util("a * b", "a")  # not in the file: the edit fails


@pytest.fixture
def repo(tmp_path):
    from tests.helpers.repos import make_git_repo

    repo = make_git_repo(tmp_path / "repo", {"util.py": UTIL})
    (repo / ".acode").mkdir()  # the project root whatever folders above hold
    return repo


def events_of(out: subprocess.CompletedProcess) -> list[dict]:
    events = [json.loads(line) for line in out.stdout.splitlines()]
    for event in events:
        validator().validate(event)
    return events


# -- item 2: a denied edit is not a success --------------------------------------------------------
def test_a_denied_edit_followed_by_done_exits_1_and_says_why_once(repo):
    script = write_script(repo, [SUBTRACT, "Done: add now subtracts."])
    env = {k: v for k, v in cli_env(script).items() if k != "COLUMNS"}  # stderr a pipe, as in a script
    # default mode without a terminal: edits are denied
    out = subprocess.run([*ACODE, "-p", "make add subtract", "--backend", "scripted"], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 1, out.stderr
    assert (repo / "util.py").read_text() == UTIL
    reason = [line for line in out.stderr.splitlines() if line.startswith("change_not_made:")]
    assert len(reason) == 1 and "the requested change was not made (edits: 1 denied)" in reason[0]
    assert "replace util.py" in reason[0] and "approval needed in non-interactive mode" in reason[0]
    assert "denied: denied:" not in out.stderr


def test_a_denied_edit_is_an_error_result_in_stream_json_and_json(repo):
    script = write_script(repo, [SUBTRACT, "Done."])
    out = run_cli(repo, script, "-p", "make add subtract", "--output-format", "stream-json")
    assert out.returncode == 1
    events = events_of(out)
    error, result = events[-2], events[-1]
    assert error["type"] == "error" and "the requested change was not made" in error["message"]
    assert result["type"] == "result" and result["status"] == "error" and result["exit_code"] == 1
    assert result["stop_reason"] == "change_not_made" and "1 denied" in result["message"]

    script = write_script(repo, [SUBTRACT, "Done."])
    out = run_cli(repo, script, "-p", "make add subtract", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["exit_code"] == 1 and data["stop_reason"] == "change_not_made"


def test_an_edit_that_fails_is_not_a_success_either(repo):
    script = write_script(repo, [MISSING, "Done."])
    out = run_cli(repo, script, "-p", "make add multiply", "--approval-mode", "yolo", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["stop_reason"] == "change_not_made", out.stderr
    assert "(edits: 1 failed)" in data["message"]


@pytest.mark.parametrize(
    ("steps", "mode"),
    [
        # a question: nothing was to be changed
        ([{"tool": "read_file", "arguments": {"file_path": "util.py"}}, "add returns a + b."], "default"),
        # an edit that failed, then one that went through
        ([MISSING, {"tool": "write_file", "arguments": {"file_path": "util.py", "content": "x = 1\n"}},
          "Rewrote util.py."], "auto_edit"),
        # plan mode: edits are refused by design, a plan is the answer
        ([SUBTRACT, "Plan: 1. change add."], "plan"),
    ],
)
def test_runs_that_did_what_they_could_still_exit_0(repo, steps, mode):
    script = write_script(repo, steps)
    out = run_cli(repo, script, "-p", "look at util.py", "--approval-mode", mode, "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0, (data["stop_reason"], data["message"], out.stderr)
    assert data["exit_code"] == 0 and data["stop_reason"] == "answer"


# -- item 3: an empty prompt is a usage error before anything is loaded ---------------------------------
@pytest.mark.parametrize(
    ("args", "stdin"), [(["-p", ""], None), (["-p", "  \n\t "], None), ([], ""), ([], " \n")]
)
def test_an_empty_prompt_is_a_usage_error_before_any_model_loads(repo, args, stdin):
    # the scripted model would answer (and a session would be stored) if the run got that far
    script = write_script(repo, ["I made up a task and did it."])
    out = subprocess.run([*ACODE, *args, "--backend", "scripted"], cwd=repo, env=cli_env(script), input=stdin,
                         capture_output=True, text=True, timeout=60, check=False,
                         stdin=subprocess.DEVNULL if stdin is None else None)
    assert out.returncode == 2, out.stdout
    assert "ACODE-AGENT-002" in out.stderr and "hint:" in out.stderr and "made up" not in out.stdout
    assert not (repo / ".acode" / "acode.db").exists()


# -- item 4: failures reach stdout in the format asked for ----------------------------------------------
def test_a_config_error_gives_error_and_result_events(repo):
    (repo / ".acode" / "config.yml").write_text("agent:\n  max_turnz: 3\n")
    script = write_script(repo, ["never"])
    out = run_cli(repo, script, "-p", "hi", "--output-format", "stream-json")
    assert out.returncode == 2 and "ACODE-CFG-010" in out.stderr
    events = events_of(out)
    assert [e["type"] for e in events] == ["error", "result"]
    assert events[0]["code"] == "ACODE-CFG-010" and "agent.max_turnz" in events[0]["message"]
    assert "agent.max_turnz" in events[0]["hint"]
    assert events[1]["status"] == "error" and events[1]["exit_code"] == 2

    out = run_cli(repo, script, "-p", "hi", "--output-format", "json")
    data = json.loads(out.stdout)
    assert out.returncode == 2 and data["exit_code"] == 2 and data["error"]["code"] == "ACODE-CFG-010"


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_usage_errors_before_and_while_starting_the_run_reach_stdout(repo, fmt):
    script = write_script(repo, ["never"])
    for args, code, exit_code in ((["-p", " "], "ACODE-AGENT-002", 2),
                                  (["-p", "hi", "-r", "no-such-session"], "ACODE-SESSION-001", 1)):
        out = run_cli(repo, script, *args, "--output-format", fmt)
        assert out.returncode == exit_code, out.stderr
        if fmt == "json":
            error = json.loads(out.stdout)["error"]
        else:
            error = next(e for e in events_of(out) if e["type"] == "error")
            assert events_of(out)[-1]["type"] == "result"
        assert error["code"] == code and code in out.stderr


def test_the_fixer_finding_no_passing_candidate_is_an_error_result_with_one_reason_line(repo):
    # already so before issue 28; kept here beside the denied edit as the other "change not made"
    from tests.helpers.fixing_calc import BUGGY, REQUEST, TESTS, reply

    (repo / "calc.py").write_text(BUGGY)
    (repo / "test_calc.py").write_text(TESTS)
    script = write_script(repo, [reply(BUGGY.replace("a - b", op)) for op in ("a * b", "b - a")])
    env = {**cli_env(script), "ACODE_AGENT__FIX__MAX_ATTEMPTS": "2", "ACODE_AGENT__FIX__LINE_EDIT_CALLS": "0",
           "ACODE_AGENT__FIX__MUTANTS": "0",
           "ACODE_AGENT__FIX__TEST_COMMAND": f"{sys.executable} -m pytest -q -p no:cacheprovider"}
    argv = [*ACODE, "-p", REQUEST, "--backend", "scripted", "--approval-mode", "yolo", "-o", "stream-json"]
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=120,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode == 1, out.stderr
    result = events_of(out)[-1]
    assert result["status"] == "error" and result["exit_code"] == 1
    assert result["stop_reason"] == "tests_failing"
    assert len([line for line in out.stderr.splitlines() if line.startswith("tests_failing:")]) == 1
    assert (repo / "calc.py").read_text() == BUGGY
