"""acode review through typer's runner, on a scripted reviewer configured in the project."""

from __future__ import annotations

import yaml
from typer.testing import CliRunner

from acode.cli.main import app

PROPOSE_NOTHING = {"json": {"findings": []}}


BUG = {"json": {"findings": [{"line_number": 3, "line": "start = number * size",
                              "problem": "page 1 is skipped",
                              "severity": "high", "suggestion": "use (number - 1) * size"}]}}


def use_script(repo, steps, **reviewer):
    """Project config: the scripted backend replaying ``steps``, plus reviewer settings."""
    script = repo.parent / "script.yml"
    script.write_text(yaml.safe_dump(steps))
    # the behavioural diff (its own tests: test_review_behaviour_diff.py) asks the model a question these
    # scripts do not answer
    reviewer = {"behaviour": {"enabled": False}, **reviewer}
    config = {"model": {"backend": "scripted", "script": str(script)},
              "reviewer": {"require_candidates": False, "strategy": "per_dimension", **reviewer}}
    (repo / ".acode").mkdir(exist_ok=True)
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump(config))


def invoke(*args):
    return CliRunner().invoke(app, ["review", *args])
