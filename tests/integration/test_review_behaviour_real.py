"""`acode review` end to end on the real 0.5B with the behavioural diff: the old and new version of each
changed function run in the sandbox, and the model answers the yes/no question about each difference that
no rule decides."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from tests.helpers.behaviour_diff import CHANGED, HELPERS
from tests.helpers.review_fakes import repo_with_branch

from acode.sandbox import find_sandbox


@pytest.mark.real_model
@pytest.mark.skipif(find_sandbox()[0] is None, reason="bubblewrap cannot start here")
def test_acode_review_runs_both_versions_and_asks_the_real_model_about_each_difference(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS},
                            {"pkg/helpers.py": CHANGED}, message="Accept more header forms")
    (repo / ".acode").mkdir()
    # the shared machine can be very busy: a generous limit for the model's part
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump(
        {"reviewer": {"timeout_seconds": 1200, "behaviour": {"crosshair_seconds": 0}}}))
    done = subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--json", "--no-run-tests",
                           "--model", "qwen2.5-coder-0.5b", "--backend", "embedded"], cwd=repo,
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode in (0, 50), done.stderr[-2000:]
    data = json.loads(done.stdout)
    functions = {f["function"]: f for f in data["behaviour"]["functions"]}
    assert functions["bearer_token"]["status"] == "differs"
    assert functions["bearer_token"]["difference"]["old"] == "raises PermissionError"
    assert functions["save"]["status"] == "not_run"
    assert functions["Cache.key"]["difference"]["found_by"] == "sequence"  # built from its constructor's args
    found = {f["message"].split("`")[1].split("(")[0]: f for f in data["evidence"] if f["rule"] == "behaviour/changed"}
    # the docstring's example decides timeout_of without the model: high, and the review is rejected on it
    assert found["timeout_of"]["severity"] == "high" and data["approved"] is False
    # the real model was asked whether the request asks for a behaviour change, both framings read
    intent = data["behaviour"]["intent"]
    assert set(intent["log_odds"]) == {"asks_change", "keeps_behaviour"} and intent["votes"] == 2, intent
    if intent["verdict"] == "no_change":  # then every difference counts high, the executed one its evidence
        assert all(f["severity"] == "high" for name, f in found.items() if name != "timeout_of"), found
        return
    # the others went to the real model, which answered (both sides' log-odds read from its logprobs), unless
    # the likelihood check (run first) already counts high in that function: then the question is not asked.
    # first_negative's change is an indentation, which the likelihood does not compare: always asked.
    assert {"old_logit", "new_logit", "delta"} <= set(found["first_negative"]["metrics"]), found["first_negative"]
    auth = found["bearer_token"]
    if "the model was not asked" in auth["message"]:
        regression = [f for d in data["dimensions"] for f in d["findings"] if f["rule"] == "review/regression"]
        assert any(f["severity"] == "high" and 4 <= f["line"] <= 8 for f in regression), regression
    else:
        assert {"old_logit", "new_logit", "delta"} <= set(auth["metrics"]), auth
