"""``acode -p ... --output-format stream-json``: events are written as they happen (a consumer on the other
end of a pipe sees each tool call while the run is still going), and every line matches the JSON Schema
that ships in the package."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import jsonschema
from tests.helpers.agent_cli import ACODE, cli_env, run_cli, write_script
from tests.helpers.stream_json import validator

from acode.cli.stream_events import SCHEMA_FILE, json_schema, shipped_schema

CONSUMER = textwrap.dedent("""
    import json, sys
    log = open(sys.argv[1], "w")
    for line in sys.stdin:
        log.write(line); log.flush()
        event = json.loads(line)
        if event["type"] == "tool_use":
            print("tool:", event["tool_name"], flush=True)
    print("end of stream", flush=True)
""")


def test_the_shipped_schema_is_the_one_the_event_models_generate():
    assert SCHEMA_FILE.is_file() and shipped_schema() == json_schema()
    jsonschema.Draft202012Validator.check_schema(shipped_schema())


def test_tool_names_reach_a_piped_consumer_before_the_run_ends(git_repo, tmp_path):
    # the shell command waits for a file the test creates only after the consumer printed both tool names
    script = write_script(
        git_repo,
        [
            {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "one\n"}},
            {
                "tool": "run_shell_command",
                "arguments": {"command": "while [ ! -f go ]; do sleep 0.1; done; echo ready"},
            },
            "All done.",
        ],
    )
    (tmp_path / "consumer.py").write_text(CONSUMER)
    log = tmp_path / "events.jsonl"
    run = subprocess.Popen(
        [
            *ACODE,
            "-p",
            "write a.txt then wait",
            "--backend",
            "scripted",
            "--approval-mode",
            "yolo",
            "--output-format",
            "stream-json",
        ],
        cwd=git_repo,
        env=cli_env(script),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
    )
    consumer = subprocess.Popen(
        [sys.executable, str(tmp_path / "consumer.py"), str(log)],
        stdin=run.stdout,
        stdout=subprocess.PIPE,
        text=True,
    )
    run.stdout.close()  # the consumer owns the read end now
    try:
        seen = [consumer.stdout.readline().strip(), consumer.stdout.readline().strip()]
        assert seen == ["tool: write_file", "tool: run_shell_command"]
        assert run.poll() is None  # still running: the names came as they happened, not at the end
        (git_repo / "go").write_text("")
        assert consumer.stdout.readline().strip() == "end of stream"
        assert run.wait(timeout=60) == 0 and consumer.wait(timeout=10) == 0
    finally:
        for proc in (run, consumer):
            if proc.poll() is None:
                proc.kill()
    events = [json.loads(line) for line in log.read_text().splitlines()]
    check = validator()
    for event in events:
        check.validate(event)
    types = [e["type"] for e in events]
    assert types == [
        "init",
        "message",
        "tool_use",
        "tool_result",
        "tool_use",
        "tool_result",
        "message",
        "result",
    ]
    assert events[0]["backend"] == "scripted" and events[0]["session_id"]
    assert events[1] == {**events[1], "role": "user", "content": "write a.txt then wait"}
    assert events[5]["status"] == "success" and "ready" in events[5]["output"]
    assert events[3]["tool_id"] == events[2]["tool_id"]
    assert events[6]["content"] == "All done." and events[6]["role"] == "assistant"
    result = events[-1]
    assert result["status"] == "success" and result["exit_code"] == 0 and result["answer"] == "All done."
    assert result["stats"]["tool_calls"] == 2 and result["stats"]["turns"] == 3
    assert result["session_id"] == events[0]["session_id"]


def test_a_failing_run_ends_with_an_error_and_the_exit_code(git_repo):
    script = write_script(git_repo, [{"tool": "nope"}] * 3)
    out = run_cli(git_repo, script, "-p", "go", "--output-format", "stream-json")
    assert out.returncode == 1
    events = [json.loads(line) for line in out.stdout.splitlines()]
    for event in events:
        validator().validate(event)
    assert events[-1]["type"] == "result" and events[-1]["exit_code"] == 1
    assert events[-1]["stop_reason"] == "format_errors"
    assert any(e["type"] == "error" and e["severity"] == "error" for e in events)
    denied = [e for e in events if e["type"] == "tool_result"]
    assert denied and all(e["decision"] == "invalid" for e in denied)


def test_json_is_an_alias_and_unknown_formats_are_usage_errors(git_repo):
    script = write_script(git_repo, ["Answer."])
    as_alias = json.loads(run_cli(git_repo, script, "-p", "hi", "--json").stdout)
    as_format = json.loads(run_cli(git_repo, script, "-p", "hi", "--output-format", "json").stdout)
    assert as_alias["answer"] == as_format["answer"] == "Answer."
    assert run_cli(git_repo, script, "-p", "hi", "--output-format", "text").stdout == "Answer.\n"
    bad = run_cli(git_repo, script, "-p", "hi", "--output-format", "xml")
    assert bad.returncode == 2 and "ACODE-AGENT-003" in bad.stderr
    clash = run_cli(git_repo, script, "-p", "hi", "--json", "--output-format", "stream-json")
    assert clash.returncode == 2


def test_a_refused_server_still_gives_a_parseable_stream(git_repo):
    script = write_script(git_repo, ["never"])
    env = cli_env(script)
    env.update({"ACODE_MODEL__BASE_URL": "http://8.8.8.8/v1"})
    out = subprocess.run(
        [*ACODE, "-p", "hi", "--backend", "openai", "--output-format", "stream-json"],
        cwd=git_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2
    events = [json.loads(line) for line in out.stdout.splitlines()]
    assert [e["type"] for e in events] == ["error", "result"] and events[0]["code"] == "ACODE-NET-001"
    for event in events:
        validator().validate(event)


def test_a_tool_call_without_a_model_step_still_gets_its_tool_use_first():
    import io

    from acode.agent.loop.result import ToolStep
    from acode.cli.stream_json import StreamJsonView, StreamWriter
    from acode.llm.types import ToolCall
    from acode.tools.base import ToolResult

    out = io.StringIO()
    view = StreamJsonView(StreamWriter(out))
    call = ToolCall(id="c1", name="write_file", arguments={"file_path": "a.py", "content": "x"})
    view.on_tool_start(None, call)  # e.g. the test-driven fixer writes through the tools
    view.on_tool_step(
        None,
        ToolStep(
            turn=1,
            call_id="c1",
            name="write_file",
            arguments=call.arguments,
            decision="allowed",
            ok=True,
            output="ok",
        ),
        ToolResult(output="ok"),
    )
    denied = ToolStep(
        turn=1,
        call_id="c2",
        name="run_shell_command",
        arguments={"command": "rm x"},
        decision="denied",
        ok=False,
        output="{}",
        error="denied",
    )
    view.on_tool_step(None, denied, ToolResult(error="denied"))  # never started: announced, then its result
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(e["type"], e["tool_id"]) for e in events] == [
        ("tool_use", "c1"),
        ("tool_result", "c1"),
        ("tool_use", "c2"),
        ("tool_result", "c2"),
    ]
    for event in events:
        validator().validate(event)
