"""The built-in registry: names, kinds, schemas, subsets, and dispatcher errors."""

from __future__ import annotations

import json

import jsonschema

from acode.tools.builtin import READ_ONLY_TOOL_NAMES, REVIEW_TOOL_NAMES, builtin_tools, default_registry

GEMINI_NAMES = {
    "read_file",
    "write_file",
    "replace",
    "list_directory",
    "glob",
    "grep_search",
    "run_shell_command",
    "ask_user",
}


def test_names_kinds_and_subsets():
    tools = builtin_tools()
    names = [tool.name for tool in tools]
    assert len(names) == len(set(names))
    assert GEMINI_NAMES <= set(names)
    assert sorted(t.name for t in tools if t.read_only) == sorted(READ_ONLY_TOOL_NAMES)
    kinds = {t.name: t.kind for t in tools}
    assert kinds["write_file"] == kinds["replace"] == "edit"
    assert kinds["run_shell_command"] == "execute" and kinds["ask_user"] == "interact"
    assert default_registry(REVIEW_TOOL_NAMES).names() == list(REVIEW_TOOL_NAMES)
    assert default_registry(["read_file", "not_a_tool"]).names() == ["read_file"]


def test_every_spec_is_a_valid_json_schema_with_descriptions():
    for spec in default_registry().specs():
        jsonschema.Draft202012Validator.check_schema(spec.parameters)
        assert spec.description and spec.parameters["type"] == "object"
        for name, prop in spec.parameters["properties"].items():
            assert prop.get("description"), f"{spec.name}.{name} has no description"
        json.dumps(spec.model_dump())


def test_unknown_tool_gets_did_you_mean(call):
    result = call("read_fil", file_path="a")
    assert "Unknown tool 'read_fil'. Did you mean 'read_file'?" in result.error


def test_bad_arguments_are_structured_errors(call):
    result = call("grep_search", pattern=["not", "a", "string"], max_matches="lots")
    assert result.error.startswith("Invalid arguments for grep_search:")
    assert "pattern: Input should be a valid string" in result.error
    assert "max_matches: Input should be a valid integer" in result.error
    assert json.loads(result.for_model()) == {"error": result.error}
