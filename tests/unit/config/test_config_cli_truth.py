"""Configuration as a newcomer writes it, through the CLI (issue 28 items 14-15): a hook in the flat shape
people write from memory is the same hook as the nested one (listed by the trust notice, run when
trusted), and a configuration error says which file and key to fix."""

from __future__ import annotations

import json

import pytest
import yaml
from tests.helpers.trusted_folders import run

from acode.config import load_settings


@pytest.fixture
def repo(git_repo):
    (git_repo / ".acode").mkdir()
    return git_repo


def write_config(repo, text: str):
    path = repo / ".acode" / "config.yml"
    path.write_text(text)
    return path


FLAT = "hooks:\n  SessionStart:\n    - command: touch FLAT_HOOK_RAN\n"


def test_a_flat_hook_is_listed_by_the_trust_notice_of_an_untrusted_project(repo):
    write_config(repo, FLAT)
    out = run(repo, "-p", "hi", "--backend", "scripted", "--json", script=["hello"])
    assert out.returncode == 0, out.stderr
    assert "not trusted" in out.stderr and "hooks.SessionStart: touch FLAT_HOOK_RAN" in out.stderr
    assert not (repo / "FLAT_HOOK_RAN").exists()
    shown = json.loads(run(repo, "trust", "--show", "--json").stdout)
    assert "hooks.SessionStart: touch FLAT_HOOK_RAN" in shown["commands"]


def test_a_flat_hook_runs_when_the_project_is_trusted(repo):
    write_config(repo, FLAT)
    out = run(repo, "--trust", "-p", "hi", "--backend", "scripted", "--json", script=["hello"])
    assert out.returncode == 0, out.stderr
    assert (repo / "FLAT_HOOK_RAN").exists()


@pytest.mark.parametrize(
    "hooks",
    [
        {"BeforeTool": [{"matcher": "^replace$", "command": "echo x", "timeout": 5}]},
        {"BeforeTool": {"matcher": "^replace$", "command": "echo x", "timeout": 5}},
    ],
)
def test_the_flat_shapes_read_as_the_nested_one(repo, hooks):
    write_config(repo, yaml.safe_dump({"hooks": hooks}))
    settings = load_settings(repo, trust=True)
    (matcher,) = settings.hooks.BeforeTool
    assert matcher.matcher == "^replace$"
    assert [(h.command, h.timeout) for h in matcher.hooks] == [("echo x", 5)]


def test_a_hook_in_no_known_shape_is_still_a_config_error(repo):
    write_config(repo, "hooks:\n  SessionStart:\n    - run: echo hi\n")
    out = run(repo, "--trust", "config", "show")
    assert out.returncode == 2 and "ACODE-CFG-010" in out.stderr and "hooks.SessionStart.0.run" in out.stderr


def test_a_config_error_hint_names_the_file_and_key_not_a_command_that_fails_too(repo):
    config = write_config(repo, "agent:\n  max_turns: many\n")
    out = run(repo, "config", "show", env={"ACODE_MODEL__CONTEXT_WINDOW": "big"})
    assert out.returncode == 2
    hint = next(line for line in out.stderr.splitlines() if line.strip().startswith("hint:"))
    assert "acode config show" not in out.stderr
    assert f"'agent.max_turns' in {config.resolve()}" in hint or f"'agent.max_turns' in {config}" in hint
    assert "ACODE_MODEL__CONTEXT_WINDOW" in hint
