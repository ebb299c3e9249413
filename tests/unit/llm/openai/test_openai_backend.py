"""The openai backend against a fake OpenAI-compatible server started in-process on 127.0.0.1."""

from __future__ import annotations

import json

import pytest
from benchmarks.harness.llama_server import free_port
from tests.helpers.openai_fake_server import FakeOpenAIServer

from acode.config.model import ModelSettings
from acode.errors import ModelTimeoutError, ServerError
from acode.llm import server_caps
from acode.llm.factory import build_model
from acode.llm.openai.model import OpenAIModel
from acode.llm.protocol import ChatModel
from acode.llm.structured import tool_envelope_schema
from acode.llm.types import Message, ToolCall, ToolSpec

WRITE_FILE = ToolSpec(
    name="write_file",
    description="Write a file.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
RUN = ToolSpec(
    name="run_shell",
    description="Run a shell command.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
ASK = [Message.user("Create util.py, then run it.")]


def chat(content="", tool_calls=None, usage=None, finish="stop", logprobs=None, model="served-model"):
    message = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": logprobs}],
        "usage": usage or {"prompt_tokens": 10, "completion_tokens": 3},
    }


def native_call(name, arguments, call_id="call_abc"):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    yield fake
    fake.stop()


@pytest.fixture(autouse=True)
def _caps_in_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("ACODE_CACHE_DIR", str(tmp_path / "cache"))
    server_caps.forget_all()
    yield
    server_caps.forget_all()


def make_model(server, **overrides) -> OpenAIModel:
    settings = ModelSettings(backend="openai", base_url=server.url, name="coder", **overrides)
    model = OpenAIModel(settings)
    model.client.backoff_base = 0.01
    return model


# --- plain answers, usage, logprobs -------------------------------------------------------------------


def test_factory_builds_an_openai_model_that_fulfils_the_protocol(server):
    model = build_model(
        ModelSettings(backend="openai", base_url=server.url, name="coder", context_window=4096)
    )
    assert isinstance(model, OpenAIModel) and isinstance(model, ChatModel)
    assert model.context_window == 4096 and model.name == "coder"


def test_plain_answer_sends_the_request_and_normalises_usage_with_cached_tokens(server):
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 8}}
    server.add(json=chat("Hello there", usage=usage))
    completion = make_model(server).complete([Message.user("Say hi")], max_tokens=5, seed=7)
    assert completion.text == "Hello there" and completion.tool_calls == []
    assert completion.finish_reason == "stop" and completion.model == "served-model"
    assert (completion.usage.prompt_tokens, completion.usage.prompt_tokens_reused) == (12, 8)
    assert (completion.usage.prompt_tokens_evaluated, completion.usage.completion_tokens) == (4, 3)
    sent = server.chat_requests()[0].json
    assert sent["model"] == "coder" and sent["max_tokens"] == 5 and sent["seed"] == 7
    assert sent["temperature"] == 0.0 and sent["stream"] is False
    assert sent["messages"] == [{"role": "user", "content": "Say hi"}]
    assert "tools" not in sent and "response_format" not in sent


def test_stop_strings_are_sent_as_openai_stop(server):
    server.add(json=chat("calc.py\n```python\nx = 1"))
    completion = make_model(server).complete([Message.user("Fix it")], stop=["\n```\n"])
    assert server.chat_requests()[0].json["stop"] == ["\n```\n"] and completion.text.endswith("x = 1")
    server.add(json=chat("ok"))
    make_model(server).complete([Message.user("Fix it")])
    assert "stop" not in server.chat_requests()[1].json  # none asked: the field is not sent


def test_usage_without_cached_tokens_counts_everything_as_evaluated(server):
    server.add(json=chat("ok", usage={"prompt_tokens": 20, "completion_tokens": 1}))
    usage = make_model(server).complete(ASK).usage
    assert (usage.prompt_tokens_evaluated, usage.prompt_tokens_reused) == (20, 0)


def test_logprobs_are_requested_and_normalised(server):
    logprobs = {
        "content": [
            {
                "token": "Hi",
                "logprob": -0.1,
                "top_logprobs": [{"token": "Hi", "logprob": -0.1}, {"token": "Yo", "logprob": -2.5}],
            }
        ]
    }
    server.add(json=chat("Hi", logprobs=logprobs))
    completion = make_model(server).complete(ASK, logprobs=2)
    assert server.chat_requests()[0].json["logprobs"] is True
    assert server.chat_requests()[0].json["top_logprobs"] == 2
    assert completion.logprobs[0].token == "Hi" and completion.logprobs[0].top == {"Hi": -0.1, "Yo": -2.5}


# --- tool calls -----------------------------------------------------------------------------------------


def test_native_tool_calls_are_sent_and_read(server):
    server.add(
        json=chat(
            None,
            tool_calls=[native_call("write_file", {"path": "util.py", "content": "x"})],
            finish="tool_calls",
        )
    )
    completion = make_model(server, native_tool_calling="on").complete(ASK, tools=[WRITE_FILE, RUN])
    sent = server.chat_requests()[0].json
    assert [t["function"]["name"] for t in sent["tools"]] == ["write_file", "run_shell"]
    assert sent["tools"][0]["function"]["parameters"] == WRITE_FILE.parameters
    assert sent["tool_choice"] == "auto" and "response_format" not in sent
    assert completion.tool_calls == [
        ToolCall(id="call_abc", name="write_file", arguments={"path": "util.py", "content": "x"})
    ]
    assert completion.finish_reason == "tool_calls" and completion.text == ""


def test_native_mode_accepts_a_tool_call_written_as_fenced_json(server):
    content = '```json\n{"name": "run_shell", "arguments": {"command": "python util.py"}}\n```'
    server.add(json=chat(content))
    completion = make_model(server, native_tool_calling="on").complete(ASK, tools=[WRITE_FILE, RUN])
    assert [(c.name, c.arguments) for c in completion.tool_calls] == [
        ("run_shell", {"command": "python util.py"})
    ]


def test_native_mode_keeps_plain_text_answers(server):
    server.add(json=chat("Nothing to do."))
    streamed = []
    completion = make_model(server, native_tool_calling="on").complete(
        ASK, tools=[RUN], on_text=streamed.append
    )
    assert completion.text == "Nothing to do." and completion.tool_calls == []
    assert streamed == ["Nothing to do."]


def test_off_mode_constrains_with_response_format_and_explains_tools(server):
    server.add(json=chat('{"tool": "write_file", "arguments": {"path": "util.py", "content": "print(1)"}}'))
    completion = make_model(server, native_tool_calling="off").complete(
        [Message.system("You are acode."), *ASK], tools=[WRITE_FILE, RUN]
    )
    sent = server.chat_requests()[0].json
    assert "tools" not in sent
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": tool_envelope_schema([WRITE_FILE, RUN]), "strict": True},
    }
    system = sent["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("You are acode.")
    assert "write_file" in system["content"] and "run_shell" in system["content"]
    assert completion.tool_calls[0].name == "write_file"
    assert completion.tool_calls[0].arguments == {"path": "util.py", "content": "print(1)"}


@pytest.mark.parametrize(
    "content, expected_text, expected_tool",
    [
        (
            'Sure.\n<tool_call>\n{"name": "run_shell", "arguments": {"command": "ls"}}\n</tool_call>',
            "",
            "run_shell",
        ),
        ('{"answer": "All done."}', "All done.", None),
        ("I cannot help with that.", "I cannot help with that.", None),
    ],
)
def test_off_mode_parses_text_when_the_server_ignores_response_format(
    server, content, expected_text, expected_tool
):
    server.add(json=chat(content))
    completion = make_model(server, native_tool_calling="off").complete(ASK, tools=[WRITE_FILE, RUN])
    assert completion.text == expected_text
    assert [c.name for c in completion.tool_calls] == ([expected_tool] if expected_tool else [])


def test_history_with_tool_turns_is_sent_in_the_shape_of_each_mode(server):
    call = ToolCall(id="call_1", name="write_file", arguments={"path": "util.py", "content": "print(1)"})
    history = [*ASK, Message.assistant("", [call]), Message.tool(call, "wrote util.py")]
    server.add(json=chat("done")).add(json=chat("done"))
    make_model(server, native_tool_calling="on").complete(history, tools=[WRITE_FILE])
    make_model(server, native_tool_calling="off").complete(history, tools=[WRITE_FILE])
    native, envelope = (r.json["messages"] for r in server.chat_requests())
    assert native[1]["tool_calls"][0]["function"] == {
        "name": "write_file",
        "arguments": json.dumps(call.arguments),
    }
    assert native[2] == {"role": "tool", "tool_call_id": "call_1", "content": "wrote util.py"}
    assert json.loads(envelope[2]["content"]) == {"tool": "write_file", "arguments": call.arguments}
    assert envelope[3]["role"] == "user" and "write_file" in envelope[3]["content"]
    assert "wrote util.py" in envelope[3]["content"]


# --- auto probing -----------------------------------------------------------------------------------------


def test_auto_probes_once_and_remembers_native_support_in_memory_and_on_disk(server, tmp_path):
    server.add(json=chat(None, tool_calls=[native_call("report_status", {"status": "ok"})]))
    server.add(json=chat(None, tool_calls=[native_call("run_shell", {"command": "ls"})]))
    first = make_model(server).complete(ASK, tools=[RUN])
    probe, real = server.chat_requests()
    assert probe.json["tools"][0]["function"]["name"] == "report_status"
    assert real.json["tools"][0]["function"]["name"] == "run_shell"
    assert first.tool_calls[0].name == "run_shell"

    saved = json.loads((tmp_path / "cache" / "server_caps.json").read_text())
    assert saved[f"{server.url}|coder"]["native_tools"] is True
    server_caps.forget_all()  # a new process: only the file remembers
    server.add(json=chat(None, tool_calls=[native_call("run_shell", {"command": "pwd"})]))
    make_model(server).complete(ASK, tools=[RUN])
    assert len(server.chat_requests()) == 3  # no second probe


def test_auto_falls_back_to_response_format_when_the_probe_gets_no_tool_calls(server):
    server.add(json=chat('```json\n{"name": "report_status", "arguments": {"status": "ok"}}\n```'))
    server.add(json=chat('{"tool": "run_shell", "arguments": {"command": "ls"}}'))
    server.add(json=chat('{"answer": "done"}'))
    model = make_model(server)
    assert model.complete(ASK, tools=[RUN]).tool_calls[0].arguments == {"command": "ls"}
    assert model.complete(ASK, tools=[RUN]).text == "done"
    requests = server.chat_requests()
    assert len(requests) == 3 and "tools" not in requests[1].json and "response_format" in requests[2].json


def test_auto_treats_a_server_that_rejects_tools_as_non_native(server):
    server.add(status=400, json={"error": {"message": "tools are not supported"}})
    server.add(json=chat('{"answer": "hi"}'))
    assert make_model(server).complete(ASK, tools=[RUN]).text == "hi"


# --- structured output ------------------------------------------------------------------------------------


def test_schema_uses_json_schema_and_falls_back_to_json_object_once(server):
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    server.add(status=400, json={"error": {"message": "response_format.type: Input should be 'json_object'"}})
    server.add(json=chat('{"ok": true}')).add(json=chat('{"ok": false}'))
    model = make_model(server)
    assert model.complete(ASK, schema=schema).text == '{"ok": true}'
    assert model.complete(ASK, schema=schema).text == '{"ok": false}'
    formats = [r.json["response_format"] for r in server.chat_requests()]
    assert formats[0]["type"] == "json_schema" and formats[0]["json_schema"]["schema"] == schema
    assert formats[1] == formats[2] == {"type": "json_object", "schema": schema}
    system = server.chat_requests()[0].json["messages"][0]
    # explained, as the embedded backend does
    assert system["role"] == "system" and json.dumps(schema) in system["content"]


def test_a_schema_explained_at_the_end_leaves_the_system_message_as_it_is(server):
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    server.add(json=chat('{"ok": true}'))
    messages = [Message.system("You are acode."), *ASK]
    make_model(server).complete(messages, schema=schema, instructions_at="end")
    system, *rest = server.chat_requests()[0].json["messages"]
    assert system == {"role": "system", "content": "You are acode."}
    assert rest[-1]["role"] == "user" and rest[-1]["content"].startswith(ASK[-1].content)
    assert rest[-1]["content"].endswith(json.dumps(schema))


def test_an_optional_field_the_server_refuses_is_left_out_from_then_on(server):
    server.add(status=400, json={"error": {"message": "Unrecognized request argument: stream_options"}})
    server.add(sse=[{"choices": [{"delta": {"content": "hi"}}]}])
    server.add(sse=[{"choices": [{"delta": {"content": "again"}}]}])
    model = make_model(server)
    assert model.complete(ASK, on_text=lambda _: None).text == "hi"
    assert model.complete(ASK, on_text=lambda _: None).text == "again"
    first, retried, later = (r.json for r in server.chat_requests())
    assert "stream_options" in first and "stream_options" not in retried and "stream_options" not in later
    assert model.caps.get("unsupported_fields") == ["stream_options"]


def test_a_server_without_logprobs_answers_the_yes_no_checks_from_text(server):
    """llama-cpp-python's server started without logits_all answers a logprobs request with HTTP 500
    "logprobs is not supported…": the review failed outright against such a team server."""
    refusal = {"error": {"message": "logprobs is not supported for models created with logits_all=False"}}
    server.add(status=500, json=refusal).add(status=500, json=refusal).add(status=500, json=refusal)
    server.add(json=chat("Yes")).add(json=chat("No"))
    model = make_model(server)
    assert model.complete(ASK, max_tokens=1, logprobs=10).text == "Yes"
    assert model.complete(ASK, max_tokens=1, logprobs=10).text == "No"
    *refused, retried, later = (r.json for r in server.chat_requests())
    assert all("logprobs" in r for r in refused)
    assert not {"logprobs", "top_logprobs"} & (set(retried) | set(later))
    assert model.caps.get("unsupported_fields") == ["logprobs", "top_logprobs"]


def test_a_busy_server_is_waited_for_with_a_visible_line_for_as_long_as_the_request_may_take(server, caplog):
    """Many CI jobs on one team server: a full queue answers 429/503. acode waits (Retry-After when the
    server gives one) instead of failing the review after two quick retries."""
    busy = {"error": {"message": "server busy, queue full"}}
    server.add(status=503, json=busy).add(status=429, json=busy, headers={"Retry-After": "0.05"})
    server.add(status=503, json=busy).add(status=503, json=busy).add(json=chat("done"))
    model = make_model(server, retries=1)
    with caplog.at_level("WARNING", logger="acode.llm.openai"):
        assert model.complete(ASK).text == "done"
    waits = [r.getMessage() for r in caplog.records if "busy" in r.getMessage()]
    assert len(waits) == 4 and "HTTP 429" in waits[1] and "waiting 0.1 s" in waits[1]


def test_a_server_busy_past_the_time_limit_says_so(server):
    busy = {"error": {"message": "queue full"}}
    for _ in range(3):
        server.add(status=503, json=busy, headers={"Retry-After": "0.4"})
    model = make_model(server, timeout_seconds=1.0)
    with pytest.raises(ServerError) as raised:
        model.complete(ASK)
    assert raised.value.code == "ACODE-MODEL-109" and "busy" in raised.value.message
    # asked again while the limit allowed another wait, not after it
    assert "model.timeout_seconds" in raised.value.hint and 2 <= len(server.chat_requests()) <= 3


def test_reused_prompt_tokens_from_llama_server_timings(server):
    answer = chat("ok", usage={"prompt_tokens": 50, "completion_tokens": 2})
    answer["timings"] = {"cache_n": 42, "prompt_n": 8}
    server.add(json=answer)
    usage = make_model(server).complete(ASK).usage
    assert (usage.prompt_tokens_reused, usage.prompt_tokens_evaluated) == (42, 8)


def test_logprobs_in_the_older_completions_shape(server):
    legacy = {
        "tokens": ["A", "B"],
        "token_logprobs": [-0.5, -1.0],
        "top_logprobs": [{"A": -0.5, "C": -2.0}, {}],
    }
    server.add(json=chat("AB", logprobs=legacy))
    tokens = make_model(server).complete(ASK, logprobs=2).logprobs
    assert [(t.token, t.logprob) for t in tokens] == [("A", -0.5), ("B", -1.0)]
    assert tokens[0].top == {"A": -0.5, "C": -2.0}


# --- streaming --------------------------------------------------------------------------------------------


def test_streaming_hands_on_each_piece_and_reads_final_usage(server):
    def piece(text, finish=None):
        return {"model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}

    usage = {"model": "m", "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}}
    server.add(
        sse=[
            {"choices": [{"delta": {"role": "assistant"}}]},
            piece("Hel"),
            piece("lo"),
            piece("!", "length"),
            usage,
        ]
    )
    pieces = []
    completion = make_model(server).complete(ASK, on_text=pieces.append)
    assert pieces == ["Hel", "lo", "!"] and completion.text == "Hello!"
    assert completion.finish_reason == "length" and completion.usage.prompt_tokens == 9
    assert server.chat_requests()[0].json["stream"] is True


def test_streaming_without_usage_counts_pieces(server):
    server.add(sse=[{"choices": [{"delta": {"content": w}}]} for w in ("a", "b")])
    completion = make_model(server).complete(ASK, on_text=lambda _: None)
    assert completion.text == "ab" and completion.usage.completion_tokens == 2


def test_a_garbage_stream_event_is_a_clear_error(server):
    server.add(sse=["not json at all"])
    with pytest.raises(ServerError) as caught:
        make_model(server).complete(ASK, on_text=lambda _: None)
    assert caught.value.code == "ACODE-MODEL-103"


# --- retries and errors -----------------------------------------------------------------------------------


def test_503_is_retried_with_backoff_then_succeeds(server):
    server.add(status=503, json={"error": "loading"}).add(status=503, json={"error": "loading"})
    server.add(json=chat("finally"))
    model = make_model(server, retries=2)
    slept = []
    model.client._sleep = slept.append
    assert model.complete(ASK).text == "finally"
    assert len(server.chat_requests()) == 3 and slept == [0.01, 0.02]


def test_retry_exhaustion_names_the_url_status_and_attempts(server):
    for _ in range(3):
        server.add(status=500, json={"error": {"message": "model is loading"}})
    with pytest.raises(ServerError) as caught:
        make_model(server, retries=2).complete(ASK)
    text = str(caught.value)
    assert caught.value.code == "ACODE-MODEL-102" and "HTTP 500" in text and "model is loading" in text
    assert "gave up after 3 attempts" in text and server.url in text
    assert len(server.chat_requests()) == 3


def test_a_4xx_is_surfaced_at_once_without_retries(server):
    server.add(status=400, json={"error": {"message": "max_tokens is too large"}})
    with pytest.raises(ServerError) as caught:
        make_model(server, retries=3).complete(ASK)
    assert caught.value.code == "ACODE-MODEL-107" and "max_tokens is too large" in str(caught.value)
    assert len(server.chat_requests()) == 1


def test_unreachable_server_names_the_url_and_what_to_check():
    url = f"http://127.0.0.1:{free_port()}/v1"
    model = OpenAIModel(ModelSettings(backend="openai", base_url=url, name="coder", retries=1))
    model.client.backoff_base = 0.01
    with pytest.raises(ServerError) as caught:
        model.complete(ASK)
    error = caught.value
    assert error.code == "ACODE-MODEL-101" and url in error.message and "after 2 attempts" in error.message
    assert "Ollama" in error.hint and "vLLM" in error.hint and "model.base_url" in error.hint


@pytest.mark.parametrize("body", ["<html>Bad gateway</html>", "[1, 2]", '{"object": "list"}'])
def test_garbage_answers_are_a_clear_error(server, body):
    server.add(body=body)
    with pytest.raises(ServerError) as caught:
        make_model(server).complete(ASK)
    assert caught.value.code == "ACODE-MODEL-103" and server.url in str(caught.value)


def test_timeout_is_a_timeout_error_and_not_retried(server):
    server.add(json=chat("late"), delay=1.5)
    with pytest.raises(ModelTimeoutError) as caught:
        make_model(server, retries=2).complete(ASK, timeout=0.3)
    assert caught.value.code == "ACODE-MODEL-104" and "0.3 s" in str(caught.value)
    assert len(server.chat_requests()) == 1


def test_api_key_is_sent_as_a_header_and_never_shown_in_errors(server, monkeypatch):
    secret = "sk-local-test-0123456789abcdef"
    monkeypatch.setenv("MY_SERVER_KEY", secret)
    server.add(json=chat("ok"))
    server.add(status=401, json={"error": {"message": f"invalid api key {secret}"}})
    model = make_model(server, api_key_env="MY_SERVER_KEY")
    model.complete(ASK)
    assert server.chat_requests()[0].headers["Authorization"] == f"Bearer {secret}"
    with pytest.raises(ServerError) as caught:
        model.complete(ASK)
    assert caught.value.code == "ACODE-MODEL-106"
    assert secret not in str(caught.value) and "MY_SERVER_KEY" in caught.value.hint


def test_no_authorization_header_without_a_key(server):
    server.add(json=chat("ok"))
    make_model(server).complete(ASK)
    assert "Authorization" not in server.chat_requests()[0].headers


def test_unknown_model_lists_what_the_server_serves(server):
    server.add(path="/chat/completions", status=404, json={"error": {"message": 'model "coder" not found'}})
    server.add(
        path="/models", json={"object": "list", "data": [{"id": "llama3"}, {"id": "qwen2.5-coder:7b"}]}
    )
    with pytest.raises(ServerError) as caught:
        make_model(server).complete(ASK)
    assert caught.value.code == "ACODE-MODEL-105"
    assert "'coder'" in caught.value.message and "qwen2.5-coder:7b" in caught.value.message


# --- token counting ---------------------------------------------------------------------------------------


def test_count_tokens_uses_the_server_tokenizer_and_caches(server):
    server.add(path="/tokenize", json={"tokens": [1, 2, 3, 4, 5, 6, 7]})
    model = make_model(server)
    assert model.count_tokens("def f(): pass") == 7
    assert model.count_tokens("def f(): pass") == 7
    tokenize = [r for r in server.requests if r.path.endswith("/tokenize")]
    assert (
        len(tokenize) == 1
        and tokenize[0].path == "/tokenize"
        and tokenize[0].json == {"content": "def f(): pass"}
    )


def test_count_tokens_uses_llama_cpp_python_extras_route(server):
    server.add(path="/extras/tokenize", json={"tokens": [1, 2]})
    assert make_model(server).count_tokens("hi there") == 2


def test_count_tokens_estimates_without_a_tokenizer_endpoint(server):
    model = make_model(server)
    assert model.count_tokens("x" * 40) == 10
    assert model.count_tokens("y" * 80) == 20
    assert len(server.requests) == 2  # the two routes were tried once, then never again
