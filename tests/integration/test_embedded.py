"""The embedded backend against the real bundled 0.5B model (session fixture ``real_model``).
Prompts and answers are kept tiny: every test here runs on 2 shared CPU cores."""

from __future__ import annotations

import math
from typing import Literal

import pytest
from pydantic import BaseModel

from acode.errors import ModelError, ModelTimeoutError
from acode.llm.kv_cache import CHUNK
from acode.llm.protocol import ChatModel
from acode.llm.structured import complete_json
from acode.llm.types import Message, ToolSpec

pytestmark = pytest.mark.real_model

TOOLS = [
    ToolSpec(
        name="read_file",
        description="Read a file and return its text",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        name="run_shell",
        description="Run a shell command",
        parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
    ),
]

# A long shared system prompt, as an agent sends on every turn.
SYSTEM = "You are a careful coding assistant working in a Python project. " + " ".join(
    f"Rule {n}: keep answers short and correct." for n in range(1, 25)
)


def test_it_is_a_chat_model(real_model):
    assert isinstance(real_model, ChatModel)
    assert real_model.context_window == 4096
    assert real_model.count_tokens("") == 0
    assert 3 <= real_model.count_tokens("def add(a, b): return a + b") <= 15


def test_ask_answers_and_streams_the_same_text(real_model):
    pieces: list[str] = []
    messages = [Message.user("What is the capital of France? Answer with one word.")]
    completion = real_model.complete(messages, max_tokens=8, on_text=pieces.append)
    assert "Paris" in completion.text
    assert "".join(pieces) == completion.text
    assert completion.model == "qwen2.5-coder-0.5b"
    assert completion.usage.completion_tokens >= 1 and completion.usage.prompt_tokens > 5


@pytest.mark.parametrize(
    ("request_text", "tool", "argument", "expected"),
    [
        ("Read the file util.py", "read_file", "path", "util.py"),
        ("Run the command `ls -la`", "run_shell", "command", "ls -la"),
    ],
)
def test_constrained_tool_call_picks_the_right_tool(real_model, request_text, tool, argument, expected):
    completion = real_model.complete([Message.user(request_text)], tools=TOOLS, max_tokens=40)
    assert completion.finish_reason == "tool_calls"
    assert len(completion.tool_calls) == 1
    call = completion.tool_calls[0]
    assert call.name == tool
    assert call.arguments == {argument: expected}


class Language(BaseModel):
    language: Literal["python", "javascript", "rust"]


def test_complete_json_returns_a_validated_object(real_model):
    question = Message.user(
        "Which programming language is this code written in?\n\ndef add(a, b):\n    return a + b\n"
    )
    answer = complete_json(real_model, [question], Language, max_tokens=30)
    assert answer == Language(language="python")


def test_same_input_gives_the_same_output(real_model):
    messages = [Message.user("Write a Python function that reverses a string.")]
    first = real_model.complete(messages, max_tokens=24)
    real_model.complete([Message.user("Say hi.")], max_tokens=3)  # the KV cache now holds something else
    second = real_model.complete(messages, max_tokens=24)
    assert first.text == second.text and first.text
    sampled = [real_model.complete(messages, max_tokens=12, temperature=0.9, seed=11).text for _ in range(2)]
    assert sampled[0] == sampled[1]
    first_call = real_model.complete([Message.user("Read the file a.py")], tools=TOOLS, max_tokens=30)
    second_call = real_model.complete([Message.user("Read the file a.py")], tools=TOOLS, max_tokens=30)
    assert [(c.name, c.arguments) for c in first_call.tool_calls] == [
        (c.name, c.arguments) for c in second_call.tool_calls
    ]


def test_shared_prefix_is_served_from_the_kv_cache(real_model):
    first = real_model.complete(
        [Message.system(SYSTEM), Message.user("Name one Python keyword.")], max_tokens=4
    )
    conversation = [
        Message.system(SYSTEM),
        Message.user("Name one Python keyword."),
        first.as_message(),
        Message.user("Name another one."),
    ]
    second = real_model.complete(conversation, max_tokens=4)
    usage = second.usage
    assert usage.prompt_tokens_reused + usage.prompt_tokens_evaluated == usage.prompt_tokens
    # whole aligned chunks of the shared prefix are reused (see acode.llm.kv_cache.CHUNK)
    assert usage.prompt_tokens_reused >= first.usage.prompt_tokens - CHUNK
    assert usage.prompt_tokens_evaluated < usage.prompt_tokens / 2
    unrelated = real_model.complete([Message.user("Completely different question?")], max_tokens=2)
    assert unrelated.usage.prompt_tokens_reused < 10  # only the template's opening tokens match


def test_logprobs_of_generated_tokens(real_model):
    completion = real_model.complete([Message.user("Count: one, two, three,")], max_tokens=4, logprobs=3)
    assert completion.logprobs is not None
    assert len(completion.logprobs) == completion.usage.completion_tokens
    assert "".join(entry.token for entry in completion.logprobs) == completion.text
    for entry in completion.logprobs:
        assert 1 <= len(entry.top) <= 3
        assert entry.logprob <= 0 and all(value <= 0 for value in entry.top.values())
        assert sum(math.exp(v) for v in entry.top.values()) <= 1.0 + 1e-6
        # greedy decoding picks the most likely token
        assert math.isclose(entry.logprob, max(entry.top.values()), abs_tol=1e-6)
    plain = real_model.complete([Message.user("Count: one, two, three,")], max_tokens=4)
    assert plain.logprobs is None and plain.text == completion.text


def test_prompt_larger_than_the_window_is_a_clear_error(real_model):
    huge = "word " * 5000
    with pytest.raises(ModelError) as caught:
        real_model.complete([Message.user(huge)], max_tokens=4)
    error = caught.value
    assert error.code == "ACODE-MODEL-020"
    assert "4096" in error.message and "model.context_window" in error.hint
    still_works = real_model.complete([Message.user("Say OK.")], max_tokens=3)
    assert still_works.text


def test_timeout_raises_a_typed_error(real_model):
    with pytest.raises(ModelTimeoutError) as caught:
        real_model.complete(
            [Message.system(SYSTEM), Message.user("Explain Python.")], max_tokens=50, timeout=1e-9
        )
    assert caught.value.code == "ACODE-MODEL-023"
    # what the call had done, for the trajectory: its prompt's size (it was cut while reading it)
    partial = caught.value.partial
    assert partial.finish_reason == "timeout" and partial.usage.prompt_tokens > 10
    assert partial.text == "" and partial.usage.completion_tokens == 0


def test_acode_ask_streams_an_answer_from_the_bundled_model(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "acode", "ask", "What is the capital of France? Answer with one word."]
        + ["--model", "qwen2.5-coder-0.5b", "--max-tokens", "6"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Paris" in result.stdout


def test_greedy_grammar_checks_one_token_and_decodes_the_same_text(real_model, monkeypatch):
    """Greedy decoding under a grammar checks the most likely token alone (acode.llm.greedy_grammar): the
    same text as with llama.cpp's grammar sampler in the chain, for a JSON schema and for a tool call,
    with the whole vocabulary checked only where the grammar refuses that token."""
    from acode.llm import greedy_grammar
    from acode.llm.embedded import EmbeddedModel

    made: list[greedy_grammar.GreedyGrammar] = []
    original = greedy_grammar.GreedyGrammar.__init__

    def recording(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(greedy_grammar.GreedyGrammar, "__init__", recording)
    schema = {"type": "object", "required": ["fruits"], "properties": {"fruits": {"type": "array", "items": {
        "type": "object", "required": ["name", "colour"],
        "properties": {"name": {"type": "string"}, "colour": {"type": "string"}}}}}}
    calls = [{"messages": [Message.user("List two fruits as JSON with their colours.")], "schema": schema},
             {"messages": [Message.user("Show me the contents of setup.py")], "tools": TOOLS}]
    texts = {}
    for first in (False, True):
        monkeypatch.setattr(EmbeddedModel, "grammar_checks_argmax_first", first)
        texts[first] = [real_model.complete(max_tokens=60, **call) for call in calls]
    assert [c.text for c in texts[True]] == [c.text for c in texts[False]]
    assert [[(t.name, t.arguments) for t in c.tool_calls] for c in texts[True]] == [
        [(t.name, t.arguments) for t in c.tool_calls] for c in texts[False]]  # ids are random
    assert texts[True][1].tool_calls[0].name == "read_file"
    assert len(made) == 2 and all(g.steps >= 5 for g in made)
    assert sum(g.whole_vocabulary_checks for g in made) < sum(g.steps for g in made) / 4
