"""Extensions: discovery in user and project folders, selection with -e, context, commands, personas."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from acode.commands.loader import load_commands
from acode.errors import UsageError
from acode.extensions.loader import (
    discover_extensions,
    excluded_tools,
    extensions_context,
    select_extensions,
)


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    ext = root / ".acode" / "extensions"
    write_json(ext / "security.json", {"name": "security", "version": "1.2.0", "prompt": "You audit code.",
                                        "excludeTools": ["run_shell_command"]})
    folder = ext / "docs"
    write_json(folder / "acode-extension.json", {
        "name": "docs", "version": "0.1.0", "description": "Docs helper", "contextFileName": "DOCS.md",
        "mcpServers": {"notes": {"command": "python", "args": ["-m", "notes"], "readOnlyTools": ["search"]}},
    })
    (folder / "DOCS.md").write_text("Write docs in plain English.")
    (folder / "commands").mkdir()
    (folder / "commands" / "summarize.toml").write_text('prompt = "Summarise {{args}}"')
    user = Path(os.environ["ACODE_CONFIG_HOME"]) / "extensions"
    write_json(user / "security.json", {"name": "security", "version": "0.0.1"})
    write_json(user / "personal.json", {"name": "personal"})
    (ext / "broken.json").write_text("{oops")
    return root


def test_discovery_prefers_project_and_reports_broken_manifests(project):
    problems: list[str] = []
    found = discover_extensions(project, problems=problems)
    assert sorted(found) == ["docs", "personal", "security"]
    assert found["security"].manifest.version == "1.2.0" and found["security"].scope == "project"
    docs = found["docs"]
    assert docs.manifest.mcp_servers["notes"].read_only_tools == ["search"]
    assert docs.context_text() == "Write docs in plain English."
    assert len(problems) == 1 and "broken.json" in problems[0]


def test_selection(project):
    found = discover_extensions(project)
    assert {e.name for e in select_extensions(found, None)} == {"docs", "personal", "security"}
    assert select_extensions(found, ["none"]) == []
    assert [e.name for e in select_extensions(found, ["docs,security"])] == ["docs", "security"]
    with pytest.raises(UsageError, match="unknown extension") as info:
        select_extensions(found, ["nope"])
    assert "docs, personal, security" in info.value.hint


def test_enabled_extensions_contribute_context_exclusions_and_commands(project):
    enabled = select_extensions(discover_extensions(project), ["docs", "security"])
    assert "Write docs in plain English." in extensions_context(enabled)
    assert excluded_tools(enabled) == {"run_shell_command"}
    dirs = [(e.commands_dir, e.name) for e in enabled if e.commands_dir]
    commands = load_commands(project, dirs)
    assert commands["summarize"].scope == "extension:docs"
