"""Agent definitions: front matter parsing, precedence, extension personas, unknown names."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acode.agent.subagents.definitions import get_agent, load_agents, parse_agent_markdown
from acode.errors import ConfigError, UsageError
from acode.extensions.loader import discover_extensions

SECURITY = """---
name: security-auditor
description: Finds security problems
tools: read_file, grep_search
model: qwen2.5-coder-0.5b
temperature: 0.2
max_turns: 7
timeout_mins: 2.5
---
You audit code for security problems.

Report each finding with its file.
"""


def test_front_matter_is_parsed_into_a_definition(tmp_path):
    definition = parse_agent_markdown(SECURITY, tmp_path / "security.md")
    assert definition.name == "security-auditor"
    assert definition.description == "Finds security problems"
    assert definition.tools == ["read_file", "grep_search"]
    assert definition.model == "qwen2.5-coder-0.5b"
    assert (definition.temperature, definition.max_turns, definition.timeout_mins) == (0.2, 7, 2.5)
    assert (
        definition.system_prompt
        == "You audit code for security problems.\n\nReport each finding with its file."
    )
    assert definition.source.endswith("security.md")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no front matter", "no YAML front matter"),
        ("---\nname: x\nbody", "not closed"),
        ("---\nname: [x\n---\nbody", "not valid YAML"),
        ("---\nmax_turns: -1\n---\nbody", "max_turns"),
        ("---\ncolour: red\n---\nbody", "colour"),
        ("---\nname: x\n---\n\n", "body"),
    ],
)
def test_bad_definitions_name_the_file_and_the_problem(tmp_path, text, message):
    with pytest.raises(ConfigError, match=message) as info:
        parse_agent_markdown(text, tmp_path / "bad.md")
    assert "bad.md" in info.value.message


def test_builtins_user_project_and_extension_personas(tmp_path):
    project = tmp_path / "proj"
    agents_dir = project / ".acode" / "agents"
    agents_dir.mkdir(parents=True)
    (agents_dir / "security.md").write_text(SECURITY)
    (agents_dir / "coder-agent.md").write_text(
        "---\nname: coder-agent\ndescription: mine\n---\nCustom coder."
    )
    (agents_dir / "broken.md").write_text("oops")
    user_dir = Path(os.environ["ACODE_CONFIG_HOME"]) / "agents"
    user_dir.mkdir(parents=True)
    (user_dir / "security.md").write_text(SECURITY.replace("Finds security problems", "user version"))
    ext_dir = project / ".acode" / "extensions"
    ext_dir.mkdir()
    (ext_dir / "pirate.json").write_text(
        json.dumps(
            {"name": "pirate", "version": "1.0.0", "prompt": "Talk like a pirate.", "contextFileName": "P.md"}
        )
    )
    (ext_dir / "P.md").write_text("Say arr.")
    problems: list[str] = []
    agents = load_agents(project, discover_extensions(project).values(), problems=problems)
    assert {"codebase_investigator", "coder-agent", "reviewer-agent", "security-auditor", "pirate"} <= set(
        agents
    )
    assert agents["security-auditor"].description == "Finds security problems"  # project beats user
    assert agents["coder-agent"].system_prompt == "Custom coder."  # project beats built-in
    assert agents["pirate"].system_prompt == "Talk like a pirate.\n\nSay arr."
    assert len(problems) == 1 and "broken.md" in problems[0]
    with pytest.raises(UsageError, match="unknown agent 'nobody'") as info:
        get_agent(agents, "nobody")
    assert "codebase_investigator" in info.value.hint and "pirate" in info.value.hint


def test_builtin_personas_come_from_templates():
    agents = load_agents(None)
    assert "update_plan" in agents["coder-agent"].system_prompt
    assert "complete_task" in agents["codebase_investigator"].system_prompt
    assert agents["codebase_investigator"].output == "investigation"
    assert "write_file" not in agents["codebase_investigator"].tools
