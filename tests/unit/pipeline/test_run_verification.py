"""`acode run` tells what its verification found, through the CLI with the scripted model: a change that
breaks a test that passed before the run is not approved (the failed check runs on the start commit too,
and the review's decision is derived from that), a test that failed before the run and still fails is
reported as failing before and after and does not block, and a verification that could not run says so.
Issue 28, item 1 (and the run's progress lines and summary width, item 13)."""

from __future__ import annotations

import json
import os

import pytest
from tests.helpers.run_helpers import (
    BAD_UTIL,
    TASK,
    TEST_UTIL,
    git,
    make_repo,
    plan,
    run_cli,
    write,
    write_config,
)

from acode.paths import ProjectPaths

TEST_ADD = "from util import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
SUBTRACTING = "def add(a, b):\n    return a - b\n"
# a test that fails before the run: sub() has a bug nobody asked the run to fix
WITH_SUB = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a + b\n"
TEST_SUB = "from util import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n"
WITH_SUB_AND_DOUBLE = WITH_SUB + "\n\ndef double(n):\n    return 2 * n\n"


def approve_line(line_number: int, line: str) -> list:
    """The reviewer doubts one changed line and its check dismisses the doubt: the model's part approves."""
    doubt = {"dimension": "code_quality", "file": "util.py", "line_number": line_number, "line": line,
             "problem": "could be wrong", "severity": "low", "suggestion": "double-check"}
    return [{"json": {"findings": [doubt]}}, "no"]


NO_FIX = ["I could not fix it.", "Still nothing to change."]  # one verify retry that changes nothing


def acode(root, *args: str):
    """`acode ARGS` with stdout to a pipe and no COLUMNS to size it, as `acode run ... > log`. The
    environment is passed explicitly: readline (which pytest imports) sets COLUMNS=80 in the process's C
    environment, which a child inherits though ``os.environ`` does not show it."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    return run_cli(root, *args, env=env)


@pytest.fixture
def repo(tmp_path):
    root = make_repo(tmp_path / "repo")
    (root / "test_util.py").write_text(TEST_ADD)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a test of add")
    return root


def summary_json(root) -> dict:
    done = acode(root, "summary", "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow
def test_a_change_that_breaks_a_passing_test_is_not_approved(repo):
    write_config(repo, [plan("make add subtract"), write("util.py", SUBTRACTING), "done", *NO_FIX,
                        *approve_line(2, "    return a - b")], pipeline={"max_verify_retries": 1})

    done = acode(repo, "run", "rewrite add in util.py", "--max-cycles", "1")

    assert done.returncode == 50, done.stdout + done.stderr
    box = done.stdout
    assert "REJECTED" in box and "APPROVED" not in box
    assert "test_util::test_add passed at the start of the run and fails with the change" in box
    assert "FAILED: the change breaks 1 test (test_util::test_add)" in box
    # on a file the box keeps a readable width, and the progress lines say each thing once
    assert max(len(line) for line in box.splitlines()) <= 100
    assert "failed: failed:" not in done.stderr and "cycle  attempt" not in done.stderr
    assert "verify_retry: attempt 1 of 1" in done.stderr
    assert "  fix 1: " in done.stderr and "step 0" not in done.stderr  # the fix step has a number
    assert f"`acode run --undo {summary_json(repo)['session_id']}`" in done.stderr
    assert "  test_util::test_add passed at the start of the run and fails with the change" in done.stderr

    stored = summary_json(repo)
    assert stored["decision"] == "REJECTED" and stored["exit_code"] == 50
    verification = stored["verification"]
    assert verification["status"] == "failed" and verification["regressed"] == ["test_util::test_add"]
    assert "1 test pass on the base and fail with the change: test_util::test_add" in [
        i["message"] for i in stored["issues"]]


@pytest.mark.slow
def test_a_rejection_for_a_broken_test_goes_back_to_the_planner(repo):
    """The feedback of the failing test reaches the next plan, which puts the code right: approved."""
    write_config(repo, [plan("make add subtract"), write("util.py", SUBTRACTING), "done", *NO_FIX,
                        *approve_line(2, "    return a - b"),
                        plan("put add back"), write("util.py", "def add(a, b):\n    return a + b\n"), "done",
                        *approve_line(2, "    return a + b")], pipeline={"max_verify_retries": 1})

    done = acode(repo, "run", "rewrite add in util.py", "--max-cycles", "2", "--json")

    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["cycles"] == 2 and [r["decision"] for r in summary["reviews"]] == ["REJECTED", "APPROVED"]
    assert summary["verification"]["status"] == "passed"
    run_dir = ProjectPaths(repo).acode_dir / "runs" / summary["session_id"]
    assert "test_util::test_add" in (run_dir / "plan_v2.md").read_text()


@pytest.mark.slow
def test_a_test_failing_before_the_run_is_reported_not_blamed(repo):
    (repo / "util.py").write_text(WITH_SUB)
    (repo / "test_sub.py").write_text(TEST_SUB)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "sub and its test (failing)")
    write_config(repo, [plan("add double"), write("util.py", WITH_SUB_AND_DOUBLE), "done", *NO_FIX,
                        *approve_line(10, "    return 2 * n")], pipeline={"max_verify_retries": 1})

    done = acode(repo, "run", "add double(n) to util.py")

    assert done.returncode == 0, done.stdout + done.stderr
    box = done.stdout
    assert "APPROVED" in box
    assert "passed apart from 1 test (test_sub::test_sub) failing before and after the change" in box
    assert "test_sub::test_sub failing before and after the change (not held against it)" in box
    verification = summary_json(repo)["verification"]
    assert verification["status"] == "failing_before"
    assert verification["failing_before"] == ["test_sub::test_sub"] and verification["regressed"] == []


def test_a_verification_that_timed_out_says_it_could_not_run(repo):
    (repo / "test_slow.py").write_text("import time\n\n\ndef test_slow():\n    time.sleep(60)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a slow test")
    write_config(repo, [plan("add double"), write("util.py", UTIL_DOUBLE), "done", *NO_FIX,
                        *approve_line(6, "    return 2 * n")],
                 pipeline={"max_verify_retries": 1, "timeouts": {"verifier": 3}})

    done = acode(repo, "run", "add double(n) to util.py")

    box = done.stdout
    assert "NOT RUN: `python -m pytest -q` could not run" in box, box + done.stderr
    assert "`python -m pytest -q` could not run: did not finish in 3 s (pipeline.timeouts.verifier)" in box
    verification = summary_json(repo)["verification"]
    assert verification["status"] == "not_run" and verification["not_run"] == ["python -m pytest -q"]


def test_a_run_with_no_checks_at_all_says_so(tmp_path):
    repo = make_repo(tmp_path / "repo")  # util.py, no tests, no ruff configuration
    write_config(repo, [plan("add double"), write("util.py", UTIL_DOUBLE), "done",
                        *approve_line(6, "    return 2 * n")])

    done = acode(repo, "run", "add double(n) to util.py")

    assert done.returncode == 0, done.stdout + done.stderr
    assert "NOT RUN: no checks ran" in done.stdout
    assert "no checks ran: no test files, no ruff configuration" in done.stdout
    assert summary_json(repo)["verification"]["status"] == "not_run"


UTIL_DOUBLE = "def add(a, b):\n    return a + b\n\n\ndef double(n):\n    return 2 * n\n"


def test_a_model_verdict_of_approved_does_not_outweigh_a_broken_test(repo):
    """With the model's overall verdict as the review's decision (reviewer.decision_strategy: verdict),
    its APPROVED still does not pass a change that breaks a test: the decision follows the evidence."""
    write_config(repo, [plan("make add subtract"), write("util.py", SUBTRACTING), "done",
                        {"json": {"verdict": "APPROVED", "reason": "looks fine"}}],
                 pipeline={"max_verify_retries": 0}, reviewer={"decision_strategy": "verdict"})

    done = acode(repo, "run", "rewrite add in util.py", "--max-cycles", "1", "--json")

    assert done.returncode == 50, done.stdout + done.stderr
    summary = json.loads(done.stdout)
    assert summary["decision"] == "REJECTED"
    assert summary["reviewer_notes"].startswith("the verification shows the change breaks tests: 1 test pass "
                                                "on the base and fail with the change: test_util::test_add")
    assert "(the review alone: APPROVED" in summary["reviewer_notes"]


def test_a_failing_test_the_change_adds_is_not_failing_before(tmp_path):
    """The change's own new test fails: it did not fail before the run (it did not exist), even though on
    the start commit with the change's test files over it, it fails too."""
    repo = make_repo(tmp_path / "repo")
    write_config(repo, [plan("add is_even and its test"), write("util.py", BAD_UTIL),
                        write("test_util.py", TEST_UTIL), "Added.", *NO_FIX,
                        *approve_line(6, "    return n % 2 == 1")],
                 pipeline={"max_verify_retries": 1})

    done = acode(repo, "run", TASK, "--max-cycles", "1")

    assert done.returncode == 50, done.stdout + done.stderr
    assert "test_util::test_is_even (a test the change adds) fails" in done.stdout
    verification = summary_json(repo)["verification"]
    assert verification["new_failing"] == ["test_util::test_is_even"] and verification["failing_before"] == []
