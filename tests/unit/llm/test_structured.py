"""Structured answers: the tool envelope schema, parsing tool calls from text, validated JSON with one
re-ask."""

from __future__ import annotations

import json
from typing import Literal

import jsonschema
import pytest
from pydantic import BaseModel

from acode.errors import ModelOutputError
from acode.llm.structured import complete_json, parse_tool_text, tool_envelope_schema
from acode.llm.types import Message, ToolSpec

TOOLS = [
    ToolSpec(
        name="read_file",
        description="Read a file",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    ),
    ToolSpec(
        name="run_shell",
        description="Run a command",
        parameters={
            "title": "RunShell",
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"],
        },
    ),
]


class Verdict(BaseModel):
    approved: bool
    severity: Literal["low", "high"]


def test_complete_json_accepts_a_valid_first_answer(scripted):
    model = scripted({"json": {"approved": True, "severity": "low"}})
    assert complete_json(model, [Message.user("judge")], Verdict) == Verdict(approved=True, severity="low")
    assert len(model.calls) == 1
    assert model.calls[0]["schema"]["properties"]["severity"]["enum"] == ["low", "high"]


def test_complete_json_reasks_once_with_the_validation_error(scripted):
    model = scripted(
        {"json": {"approved": True, "severity": "medium"}},
        '```json\n{"approved": false, "severity": "high"}\n```',
    )
    result = complete_json(model, [Message.user("judge")], Verdict)
    assert result == Verdict(approved=False, severity="high")
    second = model.calls[1]["messages"]
    assert second[0].content == "judge"
    assert second[1].role == "assistant" and "medium" in second[1].content
    assert second[2].role == "user" and "severity" in second[2].content and "not valid" in second[2].content


def test_a_reask_with_the_schema_explained_at_the_end_does_not_repeat_it(scripted):
    """instructions_at="end": the backend appends the schema to the last message, the re-ask itself."""
    model = scripted({"json": {"approved": True, "severity": "medium"}}, {"json": {"approved": True,
                                                                                 "severity": "low"}})
    complete_json(model, [Message.user("judge")], Verdict, instructions_at="end")
    reask = model.calls[1]["messages"][-1].content
    assert "not valid" in reask and '"enum"' not in reask and model.calls[1]["instructions_at"] == "end"
    model = scripted({"json": {"severity": "x"}}, {"json": {"approved": True, "severity": "low"}})
    complete_json(model, [Message.user("judge")], Verdict)
    assert '"enum"' in model.calls[1]["messages"][-1].content  # "system": the schema goes with the re-ask


def test_complete_json_raises_a_typed_error_after_the_retry(scripted):
    model = scripted("I think it is fine.", '{"approved": "maybe"}')
    with pytest.raises(ModelOutputError) as caught:
        complete_json(model, [Message.user("judge")], Verdict)
    assert caught.value.code == "ACODE-MODEL-010"
    assert "Verdict" in caught.value.message and caught.value.hint
    assert len(model.calls) == 2


def test_complete_json_tolerates_raw_newlines_inside_strings(scripted):
    class Note(BaseModel):
        text: str

    model = scripted('{"text": "line one\nline two"}')
    assert complete_json(model, [Message.user("note")], Note).text == "line one\nline two"


def test_parse_tool_text_reads_qwen_tool_call_tags():
    text = 'Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.py"}}\n</tool_call>'
    answer, calls = parse_tool_text(text, ["read_file", "run_shell"])
    assert answer == "" and len(calls) == 1
    assert calls[0].name == "read_file" and calls[0].arguments == {"path": "a.py"}


def test_parse_tool_text_reads_fenced_envelopes_and_string_arguments():
    _, calls = parse_tool_text(
        '```json\n{"tool": "run_shell", "arguments": {"command": "ls"}}\n```', ["run_shell"]
    )
    assert calls[0].name == "run_shell" and calls[0].arguments == {"command": "ls"}
    _, calls = parse_tool_text(
        '{"name": "run_shell", "arguments": "{\\"command\\": \\"pwd\\"}"}', ["run_shell"]
    )
    assert calls[0].arguments == {"command": "pwd"}


def test_parse_tool_text_keeps_plain_text_and_unwraps_answers():
    assert parse_tool_text("Just prose, {not json}.", ["run_shell"]) == ("Just prose, {not json}.", [])
    assert parse_tool_text('{"answer": "done"}', ["run_shell"]) == ("done", [])
    # a JSON object naming an unknown tool via "name" is not taken for a call
    text = '{"name": "delete_everything", "arguments": {}}'
    assert parse_tool_text(text, ["run_shell"]) == (text, [])


def test_envelope_schema_accepts_exactly_one_known_tool_or_an_answer():
    schema = tool_envelope_schema(TOOLS)
    jsonschema.Draft202012Validator.check_schema(schema)
    valid = jsonschema.Draft202012Validator(schema)
    assert valid.is_valid({"tool": "read_file", "arguments": {"path": "x"}})
    assert valid.is_valid({"tool": "run_shell", "arguments": {"command": "ls"}})
    assert valid.is_valid({"answer": "all done"})
    assert not valid.is_valid({"tool": "rm_rf", "arguments": {"path": "x"}})
    assert not valid.is_valid({"tool": "read_file", "arguments": {}})
    assert not valid.is_valid({"tool": "read_file"})
    assert all("title" not in branch["properties"].get("arguments", {}) for branch in schema["anyOf"])
    # the tool key comes first, so a grammar built from the schema makes the model name the tool first
    assert list(schema["anyOf"][0]["properties"]) == ["tool", "arguments"]


def test_envelope_schema_without_answer_forces_a_tool():
    valid = jsonschema.Draft202012Validator(tool_envelope_schema(TOOLS, allow_answer=False))
    assert not valid.is_valid({"answer": "no"})
    assert valid.is_valid({"tool": "read_file", "arguments": {"path": "x"}})


def test_envelope_inlines_nested_model_refs():
    """A nested model's ``#/$defs`` reference would not resolve once nested under ``arguments``."""
    from pydantic import BaseModel

    from acode.llm.structured import tool_envelope_schema
    from acode.llm.types import ToolSpec

    class Location(BaseModel):
        file: str
        reason: str

    class Report(BaseModel):
        summary: str
        locations: list[Location]

    spec = ToolSpec(name="complete_task", description="finish", parameters=Report.model_json_schema())
    envelope = tool_envelope_schema([spec])
    text = json.dumps(envelope)
    assert "$ref" not in text and "$defs" not in text
    item = envelope["anyOf"][0]["properties"]["arguments"]["properties"]["locations"]["items"]
    assert set(item["properties"]) == {"file", "reason"}
