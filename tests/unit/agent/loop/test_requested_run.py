"""A run the request orders is run before the answer says so (issue 28, "a result must never say more
than what happened"): the real 0.5B wrote hello.py and answered "Created hello.py and ran it" with
nothing run. Through the CLI as a script sees it: the model is reminded once, out of sight; a model that
still does not run it ends the run with exit 1 and one truthful line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from tests.helpers.agent_cli import ACODE, cli_env, run_cli, write_script

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

HELLO = "create hello.py that prints hello, then run it"
WRITE = {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello')\n"}}
RUN = {"tool": "run_shell_command", "arguments": {"command": f"{sys.executable} hello.py"}}
CLAIM = "Created hello.py and ran it: it prints hello."


@pytest.fixture
def repo(tmp_path):
    from tests.helpers.repos import make_git_repo

    repo = make_git_repo(tmp_path / "repo")
    (repo / ".acode").mkdir()  # the project root whatever folders above hold
    return repo


def one_shot(repo, steps, prompt=HELLO, mode="yolo", fmt="json"):
    script = write_script(repo, steps)
    out = run_cli(repo, script, "-p", prompt, "--approval-mode", mode, "--output-format", fmt)
    return out


def tools_run(data: dict) -> list[str]:
    return [s["name"] for s in data["trajectory"] if s["type"] == "tool" and s["ok"]]


def told_the_model(repo, session_id: str) -> list[str]:
    messages = SessionStore(ProjectPaths(repo).db_file).load_messages(session_id)
    return [m.content for m in messages if m.role == "user"]


def test_a_claimed_run_gets_one_reminder_and_a_model_that_then_runs_it_succeeds(repo):
    out = one_shot(repo, [WRITE, CLAIM, RUN, "hello.py printed: hello"])
    data = json.loads(out.stdout)
    assert out.returncode == 0, (data["stop_reason"], data["message"], out.stderr)
    assert data["stop_reason"] == "answer" and data["answer"] == "hello.py printed: hello"
    assert tools_run(data) == ["write_file", "run_shell_command"]
    assert [s["text"] for s in data["trajectory"] if s["type"] == "model"][1] == CLAIM
    # the reminder went to the model, saying what was asked and not done ...
    reminder = told_the_model(repo, data["session_id"])[1]
    assert "run it" in reminder and "hello.py" in reminder and "run_shell_command" in reminder
    assert HELLO in reminder
    # ... and nowhere on the screen
    assert "do not say it ran" not in out.stdout + out.stderr


def test_a_model_that_still_does_not_run_it_ends_with_exit_1_and_one_truthful_line(repo):
    out = one_shot(repo, [WRITE, CLAIM, CLAIM], fmt="text")
    assert out.returncode == 1, out.stderr
    assert (repo / "hello.py").is_file()  # what was done stays done
    lines = [line for line in out.stderr.splitlines() if line.startswith("action_not_done:")]
    assert lines == [(
        "action_not_done: the requested run did not happen (asked: 'run it'): nothing ran after "
        "write_file hello.py"
    )], out.stderr
    assert out.stdout.strip() == CLAIM  # the answer is still printed; the exit status says what happened

    out = one_shot(repo, [WRITE, CLAIM, CLAIM])
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["exit_code"] == 1 and data["stop_reason"] == "action_not_done"
    assert data["message"].startswith("the requested run did not happen") and data["turns"] == 3


def test_stream_json_ends_with_an_error_and_an_error_result(repo):
    out = one_shot(repo, [WRITE, CLAIM, CLAIM], fmt="stream-json")
    events = [json.loads(line) for line in out.stdout.splitlines()]
    error, result = events[-2], events[-1]
    assert out.returncode == 1
    assert error["type"] == "error" and "the requested run did not happen" in error["message"]
    assert result["type"] == "result" and result["status"] == "error" and result["exit_code"] == 1
    assert result["stop_reason"] == "action_not_done"
    # the reminder is not an event: only the user's own prompt is a user message
    assert [e["content"] for e in events if e["type"] == "message" and e["role"] == "user"] == [HELLO]


def test_a_run_that_was_refused_is_not_asked_for_again_and_is_not_a_success(repo):
    # default mode without a terminal: the command is denied; the model says so, the run still failed
    script = write_script(repo, [{"tool": "run_shell_command", "arguments": {"command": "pytest -q"}},
                                 "I could not run the tests: approval was needed."])
    out = subprocess.run([*ACODE, "-p", "run the tests", "--backend", "scripted", "--json"], cwd=repo,
                         env=cli_env(script), capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL, check=False)
    data = json.loads(out.stdout)
    assert out.returncode == 1 and data["stop_reason"] == "action_not_done", out.stderr
    assert "last: run_shell_command pytest -q: denied" in data["message"]
    assert data["turns"] == 2  # no reminder: a refused command would only be refused again


def test_an_edit_after_the_last_run_needs_a_run_again(repo):
    fix = {"tool": "write_file", "arguments": {"file_path": "hello.py", "content": "print('hello!')\n"}}
    out = one_shot(repo, [WRITE, RUN, fix, "Fixed and ran it.", RUN, "It prints hello!"])
    data = json.loads(out.stdout)
    assert out.returncode == 0, (data["stop_reason"], data["message"])
    assert tools_run(data) == ["write_file", "run_shell_command", "write_file", "run_shell_command"]


@pytest.mark.parametrize(
    ("prompt", "steps"),
    [
        # a question about running: nothing to run
        ("how do I run hello.py?", ["Run it with `python hello.py`."]),
        # a request to write only
        ("create hello.py that prints hello", [WRITE, "Created hello.py."]),
        # a run that did run the command
        (HELLO, [WRITE, RUN, CLAIM]),
        # the request's one command, run (the turn guard then asks for the answer)
        (f"Run the shell command: {sys.executable} -c pass", [
            {"tool": "run_shell_command", "arguments": {"command": f"{sys.executable} -c pass"}}, "Ran it."]),
    ],
)
def test_no_reminder_and_exit_0_where_nothing_is_missing(repo, prompt, steps):
    out = one_shot(repo, steps, prompt=prompt)
    data = json.loads(out.stdout)
    assert out.returncode == 0, (data["stop_reason"], data["message"], out.stderr)
    assert data["turns"] == len([s for s in steps if isinstance(s, dict)]) + 1  # every step, no extra one
    assert told_the_model(repo, data["session_id"]) == [prompt]


def test_plan_mode_is_not_asked_to_run_anything(repo):
    out = one_shot(repo, ["Plan: 1. write hello.py 2. run it."], mode="plan")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["turns"] == 1, (data["stop_reason"], data["message"])


def test_the_call_after_the_reminder_may_only_run_a_command(tmp_path, scripted):
    """A reminder in words alone did not do it with the real 0.5B: it answered again in the reminder's
    words. The call after it is constrained to the command tools, with no answer; the tools stay
    described so the prompt (and its cached prefix) does not change."""
    from tests.helpers.agent_fakes import make_loop, new_state

    model = scripted(WRITE, CLAIM, {"tool": "run_shell_command", "arguments": {"command": "python hello.py"}},
                     "hello.py printed: hello")
    loop = make_loop(model, tmp_path, judge_outcome=True, requested_run=True)
    result = loop.run(new_state(loop), HELLO)
    assert result.ok and loop.ctx.state["ran"] == ["python hello.py"], (result.stop_reason, result.message)
    schemas = [call["schema"] for call in model.calls]
    assert schemas[0] is None and schemas[1] is None
    branches = schemas[2]["anyOf"]
    assert [b["properties"]["tool"]["const"] for b in branches] == ["run_shell_command"]
    # once it has run, the model had given its answer already: the next call may only answer
    assert [list(b["properties"]) for b in schemas[3]["anyOf"]] == [["answer"]]
    assert [t.name for t in model.calls[2]["tools"]] == [t.name for t in model.calls[1]["tools"]]


@pytest.mark.parametrize(
    ("typed", "asked"),
    [
        (HELLO, "run it"),
        ("create hello.py and run it", "run it"),
        ("Write hello.py. Then run it.", "run it"),
        ("Please run the tests", "Please run the tests"),
        ("Can you run the tests?", "Can you run the tests"),
        ("fix the bug, then rerun the tests", "rerun the tests"),
        ("Run: python hello.py", "Run: python hello.py"),
        ("Run `make build and test` now", "Run `make build and test` now"),
        ("test it", "test it"),
        ("execute main.py", "execute main.py"),
        ("how do I run the tests?", ""),
        ("What happens when I run hello.py?", ""),
        ("can I run the tests without a network?", ""),
        ("explain how to run the tests", ""),
        ("write a script that runs the tests", ""),
        ("write a function to run the migrations", ""),
        ("Don't run it, just write hello.py", ""),
        ("run.py is broken, fix it", ""),
        ("write tests for util.py", ""),
        ("`npm run build` fails, why?", ""),
        ("fix this:\n```\nrun(config)\nexecute(query)\n```", ""),
        ("rename run(x) to start(x)", ""),
        ("I ran the tests and they fail: fix util.py", ""),
    ],
)
def test_reading_the_request(typed, asked):
    from acode.agent.loop.requested_run import asked_to_run

    assert asked_to_run(typed) == asked
