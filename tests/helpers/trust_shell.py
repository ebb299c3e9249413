"""acode -p on a trusted folder with its own rules, and the tool steps it took."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from tests.helpers.agent_cli import run_cli as _run_cli


def run_cli(repo, script, *args, **kw):
    """The project's own rules and hooks in these tests are the user's choice: the folder is trusted."""
    return _run_cli(repo, script, "--trust", *args, **kw)


def configure(repo: Path, config: dict) -> None:
    (repo / ".acode").mkdir(exist_ok=True)
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump(config))


def tool_steps(out) -> list[dict]:
    assert out.returncode == 0, out.stderr
    return [s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool"]
