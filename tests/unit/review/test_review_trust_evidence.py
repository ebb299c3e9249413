"""Issue 47 items 4 and 5: the change under review must not switch off the evidence that would reject it.
Its own `# noqa` does not lower a finding (only a suppression the base already had may), and tests or
modules it makes hang or refuse to import count against it instead of leaving the review with less
evidence. Each case runs `acode review --base main` through the CLI on a scripted model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from review_fakes import repo_with_branch

PROPOSE_NOTHING = {"json": {"findings": []}}


def review(repo: Path, *args: str, **settings: str) -> tuple[int, dict, str]:
    """(exit code, the --json report, stderr) of `acode review --base main` on a model that proposes
    nothing; ``settings``: ACODE_REVIEWER__<NAME> variables."""
    script = repo.parent / "script.yml"
    script.write_text(yaml.safe_dump([PROPOSE_NOTHING] * 10))
    env = {**os.environ, "ACODE_MODEL__BACKEND": "scripted", "ACODE_MODEL__SCRIPT": str(script),
           "ACODE_REVIEWER__REQUIRE_CANDIDATES": "false", "ACODE_REVIEWER__REGRESSION__METHOD": "off",
           "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false",
           **{f"ACODE_REVIEWER__{k.upper()}": v for k, v in settings.items()}}
    out = subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--json", *args],
                         cwd=repo, env=env, capture_output=True, text=True, timeout=300,
                         stdin=subprocess.DEVNULL, check=False)
    assert out.returncode in (0, 50), out.stderr
    return out.returncode, json.loads(out.stdout), out.stderr


def findings(report: dict, rule: str) -> list[dict]:
    return [f for f in report["evidence"] if f["rule"] == rule]


# ---- item 4: a suppression comment the change adds ----

SAFE_QUERY = '''def find_user(cur, name):
    """The user called ``name``."""
    return cur.execute("SELECT * FROM users WHERE name = ?", (name,)).fetchone()
'''
SAFE_LOAD = '''import json


def load(blob):
    """The settings stored in ``blob``."""
    return json.loads(blob)
'''


@pytest.mark.parametrize(("before", "after", "rule"), [
    (SAFE_QUERY, SAFE_QUERY.replace('"SELECT * FROM users WHERE name = ?", (name,)',
                                    "f\"SELECT * FROM users WHERE name = '{name}'\"")
     .replace(".fetchone()", ".fetchone()  # noqa: S608"), "ruff/S608"),
    (SAFE_LOAD, SAFE_LOAD.replace("import json", "import pickle")
     .replace("json.loads(blob)", "pickle.loads(blob)  # noqa"), "ruff/S301"),
], ids=["S608 named", "S301 bare noqa"])
def test_a_noqa_the_change_adds_on_its_own_line_is_shown_and_does_not_lower_the_finding(
        tmp_path, before, after, rule):
    """Before: the change's `# noqa` made S608 (and S301) medium, so the injection was APPROVED."""
    repo = repo_with_branch(tmp_path / "r", {"store.py": before}, {"store.py": after}, message="Simplify")
    code, report, _ = review(repo, "--no-run-tests")
    [finding] = findings(report, rule)
    assert finding["severity"] == "high", finding
    assert f"the change silences {rule.split('/')[1]} on the line it adds" in finding["message"]
    assert code == 50 and report["decision"]["verdict"] == "REJECTED"


def test_a_noqa_the_base_already_had_there_still_lowers_the_finding_so_a_sound_edit_is_approved(tmp_path):
    """The project's own reviewed exception (a table name from an allow-list) stays one when a change edits
    the query it covers: needs work, not a rejection."""
    base = '''TABLES = {"users", "groups"}


def count(cur, table):
    """How many rows ``table`` (one of TABLES) holds."""
    if table not in TABLES:
        raise ValueError(table)
    return cur.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]  # noqa: S608
'''
    edited = base.replace("COUNT(*) FROM {table}", "COUNT(id) FROM {table}")
    repo = repo_with_branch(tmp_path / "r", {"tables.py": base}, {"tables.py": edited}, message="Count ids")
    code, report, _ = review(repo, "--no-run-tests")
    [finding] = findings(report, "ruff/S608")
    assert finding["severity"] == "medium" and "already silenced" in finding["message"]
    assert code == 0 and report["decision"]["verdict"] == "APPROVED", report["decision"]
