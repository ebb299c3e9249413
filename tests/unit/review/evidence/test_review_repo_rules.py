"""reviewer.rules through the CLI: an ast-grep rule scoped to one folder fires on a changed line there and
nowhere else; a change to the rules is judged by its base's rules. No model (`--backend none`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

from acode.review.evidence.repo_rules import ast_grep_binary

pytestmark = pytest.mark.skipif(ast_grep_binary() is None, reason="NOT RUN: ast-grep is not installed "
                                "(pip install ast-grep-cli, in the dev extra)")
RULES = {"reviewer": {"rules": [{
    "id": "payments-timeout", "paths": ["src/payments/*"], "pattern": "requests.get($URL)",
    "message": "payments code calls requests.get without a timeout", "severity": "high"}]}}
BEFORE = "import requests\n\n\ndef fetch(url):\n    return url\n"
AFTER = "import requests\n\n\ndef fetch(url):\n    return requests.get(url)\n"


def review(repo: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACODE_")}
    env.update(HOME=str(repo.parent / "home"), ACODE_MODEL__BACKEND="none")
    return subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--no-run-tests",
                           "--fresh", "--json"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_a_rule_scoped_to_one_folder_fires_there_and_nowhere_else(tmp_path):
    (tmp_path / "home").mkdir()
    repo = make_git_repo(tmp_path / "repo", {"src/payments/pay.py": BEFORE, "src/reports/report.py": BEFORE,
                                             ".acode/config.yml": yaml.safe_dump(RULES)})
    git(repo, "switch", "-qc", "feature")
    for path in ("src/payments/pay.py", "src/reports/report.py"):
        (repo / path).write_text(AFTER)
    git(repo, "commit", "-qam", "fetch for real")
    done = review(repo)
    result = json.loads(done.stdout)
    fired = [(f["file"], f["line"]) for f in result["evidence"] if f["rule"] == "rules/payments-timeout"]
    assert fired == [("src/payments/pay.py", 5)], done.stdout
    assert done.returncode == 50 and not result["approved"]

    # the change widens nothing for itself: a change that drops the rule is still judged by it
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump({"reviewer": {"rules": []}}))
    git(repo, "commit", "-qam", "no more rules")
    again = json.loads(review(repo).stdout)
    assert [f["file"] for f in again["evidence"] if f["rule"] == "rules/payments-timeout"] == [
        "src/payments/pay.py"]
