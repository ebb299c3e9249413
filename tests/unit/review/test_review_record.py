"""What `acode review` does on a fixed set of changes, byte for byte (issue 53: moving the review's modules
must not change it): every request sent to the model with its reply, the report printed and the exit code,
against the record stored in review_record.json. A change that means to change behaviour rewrites the record
(REVIEW_RECORD_UPDATE=1) and shows its diff in review; tests/helpers/review_record.py says what is kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.helpers.behaviour_diff import HELPERS
from tests.helpers.review_fakes import BUGGY, SOUND
from tests.helpers.review_record import Scenario, record_review, stable

from acode.sandbox import find_sandbox

STORED = Path(__file__).with_name("review_record.json")
BUG = {"line_number": 3, "line": "start = number * size", "problem": "page 1 is skipped", "severity": "high",
       "suggestion": "use (number - 1) * size"}
# no time plan (the model's measured pace would decide what is asked) and no proposals required
FIXED = {"budget": {"enabled": False}, "require_candidates": False}
NO_DIFF = {**FIXED, "behaviour": {"enabled": False}}
# two functions of the helpers changed: one against its docstring's example (decided without a question),
# one whose difference the model is asked about (which outcome is right)
BEHAVIOUR = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS}
CHANGED = {"pkg/helpers.py": HELPERS.replace("if not auth or not auth", "if not auth and not auth")
           .replace("return 30 if value is None else value", "return value or 30")}

SCENARIOS = {
    # the checks decide; the regression check's yes/no questions are the model's part
    "checks_only_json": Scenario({"pages.py": SOUND}, {"pages.py": BUGGY}, "Change page",
                                 {"strategy": "checks_only", **NO_DIFF}, ("--json", "--no-run-tests")),
    # the behavioural diff finds two differences in the sandbox; the intent and the outcome questions
    "behaviour_difference_markdown": Scenario(
        BEHAVIOUR, CHANGED, "Accept more header forms",
        {"strategy": "checks_only", **FIXED, "behaviour": {"crosshair_seconds": 0}},
        ("--format", "markdown", "--no-run-tests")),
    # the model proposes the bug in every dimension, its check confirms it: rejected (exit 50)
    "rejected_markdown": Scenario({"pages.py": SOUND}, {"pages.py": BUGGY}, "Change page",
                                  {"strategy": "per_dimension", **NO_DIFF}, ("--format", "markdown", "--no-run-tests"),
                                  structured={"findings": [BUG]}),
    # one call proposes nothing: approved (exit 0)
    "approved_single_call_json": Scenario({"pages.py": BUGGY}, {"pages.py": SOUND}, "Fix page 1",
                                          {"strategy": "single_call", **NO_DIFF}, ("--json", "--no-run-tests")),
    # the naive baseline: the model's overall verdict
    "verdict_json": Scenario({"pages.py": SOUND}, {"pages.py": BUGGY}, "Change page",
                             {"decision_strategy": "verdict", **NO_DIFF}, ("--json", "--no-run-tests")),
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_the_review_does_what_the_stored_record_says(name, tmp_path):
    if "behaviour" in name and find_sandbox()[0] is None:
        pytest.skip("bubblewrap cannot start here: the behavioural diff does not run")
    got = record_review(tmp_path, SCENARIOS[name])
    stored = json.loads(STORED.read_text(encoding="utf-8")) if STORED.exists() else {}
    if os.environ.get("REVIEW_RECORD_UPDATE") == "1":
        stored[name] = got
        STORED.write_text(json.dumps(stored, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                          encoding="utf-8")
    assert stable(got) == stable(stored[name])
