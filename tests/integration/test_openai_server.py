"""The openai backend against a real OpenAI-compatible server: llama-cpp-python's own
``python -m llama_cpp.server`` on 127.0.0.1 serving the bundled 0.5B model. One server with the default
chat format (tool calls come back as text, so acode constrains with response_format) and one with
``--chat_format chatml-function-calling`` (native ``tool_calls``, and no prompt log-probabilities: the
launcher's default ``--logits_all False``)."""

from __future__ import annotations

import jsonschema
import pytest
from benchmarks.harness.llama_server import LlamaServer
from pydantic import BaseModel

from acode.config.model import ModelSettings
from acode.llm import server_caps
from acode.llm.bundled import resolve_model_path
from acode.llm.openai.model import OpenAIModel
from acode.llm.structured import complete_json
from acode.llm.types import Message, ToolSpec

pytestmark = [pytest.mark.server, pytest.mark.real_model]

WRITE_FILE = ToolSpec(
    name="write_file",
    description="Create or overwrite a file with the given content.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)
RUN_SHELL = ToolSpec(
    name="run_shell",
    description="Run a shell command and return its output.",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)
TASK = [
    Message.system("You are a coding agent. Use the tools to act."),
    Message.user("Create util.py that prints hello, then run it."),
]


def _serve(real_model_settings, tmp_path_factory, chat_format=None, logits_all=False):
    gguf = resolve_model_path(real_model_settings)
    logs = tmp_path_factory.mktemp("llama-server")
    server = LlamaServer(
        gguf, chat_format=chat_format, n_ctx=4096, log_file=logs / "server.log", logits_all=logits_all
    )
    return server.start()


@pytest.fixture(scope="module")  # stopped as soon as this module is done: 2 cores, shared
def default_server(real_model_settings, tmp_path_factory):
    # llama-cpp-python returns token log-probabilities (the reviewer's yes/no checks) only with logits_all
    server = _serve(real_model_settings, tmp_path_factory, logits_all=True)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def function_calling_server(real_model_settings, tmp_path_factory):
    server = _serve(real_model_settings, tmp_path_factory, chat_format="chatml-function-calling")
    yield server
    server.stop()


@pytest.fixture
def connect(tmp_path):
    server_caps.forget_all()

    def make(server: LlamaServer, **overrides) -> OpenAIModel:
        settings = ModelSettings(
            backend="openai",
            base_url=server.base_url,
            name="qwen2.5-coder-0.5b",
            context_window=4096,
            **overrides,
        )
        model = OpenAIModel(settings, caps_file=tmp_path / "server_caps.json")
        model.client.backoff_base = 0.05
        return model

    yield make
    server_caps.forget_all()


def test_plain_answer_with_server_usage_and_tokenizer(default_server, connect):
    model = connect(default_server)
    completion = model.complete([Message.user("Reply with one word: hello")], max_tokens=8)
    assert completion.text.strip() and completion.finish_reason in ("stop", "length")
    assert completion.usage.prompt_tokens > 5 and 0 < completion.usage.completion_tokens <= 8
    assert completion.usage.prompt_tokens_evaluated == completion.usage.prompt_tokens
    assert model.count_tokens("12345678") == 8  # Qwen's tokenizer splits digits; the len/4 estimate says 2


def test_constrained_tool_call_without_native_tools(default_server, connect):
    model = connect(default_server, native_tool_calling="off")
    completion = model.complete(TASK, tools=[WRITE_FILE, RUN_SHELL], max_tokens=96)
    assert len(completion.tool_calls) == 1, completion
    call = completion.tool_calls[0]
    spec = {"write_file": WRITE_FILE, "run_shell": RUN_SHELL}[call.name]
    jsonschema.validate(call.arguments, spec.parameters)
    # llama-cpp-python's server takes the schema as json_object+schema; learned from its answer, remembered
    assert model.caps.get("response_format") == "json_object"


def test_native_tool_calls_from_a_function_calling_server(function_calling_server, connect):
    model = connect(function_calling_server, native_tool_calling="on")
    # a direct instruction: with the chatml-function-calling format the 0.5B model otherwise often chooses
    # to answer in prose, and that server then returns the bare text "functions.write_file:"
    request = [
        Message.system("You are a coding agent."),
        Message.user(
            "Call write_file to create util.py containing print('hello'). Answer with the function call only."
        ),
    ]
    completion = model.complete(request, tools=[WRITE_FILE], max_tokens=96)
    assert [c.name for c in completion.tool_calls] == ["write_file"]
    assert completion.finish_reason == "tool_calls" and isinstance(completion.tool_calls[0].arguments, dict)
    assert "path" in completion.tool_calls[0].arguments


def test_auto_probe_tells_the_two_servers_apart(default_server, function_calling_server, connect):
    assert connect(function_calling_server).native_tools() is True
    assert connect(default_server).native_tools() is False


class FileFacts(BaseModel):
    language: str
    lines: int


def test_complete_json_returns_a_validated_object(default_server, connect):
    model = connect(default_server)
    facts = complete_json(
        model,
        [
            Message.user(
                "The file util.py has 3 lines of Python. Give its language and number of lines as JSON."
            )
        ],
        FileFacts,
        max_tokens=40,
    )
    assert isinstance(facts, FileFacts) and facts.lines >= 0 and facts.language


def test_temperature_zero_is_deterministic(default_server, connect):
    model = connect(default_server)
    question = [Message.user("Name one Python keyword.")]
    first = model.complete(question, max_tokens=12, temperature=0.0, seed=1)
    second = model.complete(question, max_tokens=12, temperature=0.0, seed=1)
    assert first.text == second.text and first.text.strip()


def test_streaming_hands_on_pieces_as_they_come(default_server, connect):
    pieces: list[str] = []
    completion = connect(default_server).complete(
        [Message.user("Count from 1 to 5.")], max_tokens=16, on_text=pieces.append
    )
    assert len(pieces) > 1 and "".join(pieces) == completion.text
    assert completion.usage.completion_tokens >= len(pieces) - 1


def test_a_review_on_a_server_compares_the_versions_by_question(default_server, connect, tmp_path):
    """A server cannot score text, so the regression check asks its yes/no question per version."""

    from tests.helpers.review_fakes import BUGGY, SOUND, repo_with_branch

    from acode.config.review import ReviewerSettings
    from acode.review.change.git_context import branch_context
    from acode.review.service import review_change

    model = connect(default_server)
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    result = review_change(context, model, ReviewerSettings(strategy="checks_only", timeout_seconds=600))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert {"old_logit", "new_logit", "delta_sum"} <= set(finding.metrics)  # both answers had logprobs
    assert finding.status in ("confirmed", "dismissed") and result.tokens.calls == 2
    # nothing ran the code: a confirmed guess is a reason to look (medium, needs work), never a rejection
    assert finding.severity == ("medium" if finding.status == "confirmed" else "info")
    assert result.decision.verdict == "APPROVED"
