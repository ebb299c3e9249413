"""`acode run` on the real embedded 0.5B (issue 28, item 1): a test that failed before the run is reported
as failing before and after and never blamed on the change; a change that breaks a passing test is not
approved. The whole pipeline is the real model's (planner, executor, reviewer), run as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.helpers.one_shot import REAL_MODEL

# Small budgets: two CPU cores are shared by everyone, the 0.5B makes ~20 tokens/s. No verify retries:
# what is measured is what the run says about the verification, not the executor's second try.
CONFIG = {
    "model": {"max_tokens": 256, "timeout_seconds": 1200},
    "pipeline": {"max_cycles": 1, "max_steps": 1, "agent_max_turns": 4, "plan_max_tokens": 256,
                 "max_verify_retries": 0},
    "reviewer": {"strategy": "single_call", "lookaround": {"enabled": False}, "max_tokens_per_answer": 160,
                 "timeout_seconds": 600},
}
UTIL = "def add(a, b):\n    return a + b\n"
TEST_ADD = "from util import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# fails whatever the code does: the environment lacks what it needs (as a test needing a service would)
TEST_ENV = ("import os\n\n\ndef test_needs_a_setting():\n"
            "    assert os.environ.get('ACODE_TEST_SETTING_NEVER_SET') == '1'\n")


def _repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir()
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "d@e.f"],
                 ["config", "user.name", "D"]):
        subprocess.run(["git", *args], cwd=path, check=True)
    for name, text in files.items():
        (path / name).write_text(text)
    subprocess.run(["git", "add", "-A"], cwd=path, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "start"], cwd=path, check=True)
    (path / ".acode").mkdir()
    (path / ".acode" / "config.yml").write_text(yaml.safe_dump(CONFIG))
    return path


def _run(root: Path, task: str) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if k != "ACODE_TEST_SETTING_NEVER_SET"}
    done = subprocess.run([sys.executable, "-m", "acode", "run", task, "--json", "--model", REAL_MODEL,
                           "--backend", "embedded"], cwd=root, env=env, capture_output=True, text=True,
                          timeout=3000, stdin=subprocess.DEVNULL, check=False)
    assert done.stdout.strip(), done.stderr[-3000:]
    summary = json.loads(done.stdout)
    print(json.dumps({k: summary[k] for k in ("decision", "verification", "reviewer_notes", "duration_s")},
                     indent=1))
    return done.returncode, summary


@pytest.mark.real_model
def test_a_test_failing_before_the_run_is_reported_not_blamed(tmp_path):
    root = _repo(tmp_path / "repo", {"util.py": UTIL, "test_util.py": TEST_ADD, "test_env.py": TEST_ENV})

    code, summary = _run(root, "add a function is_even(n) to util.py")

    verification = summary["verification"]
    failing = "test_env::test_needs_a_setting"
    assert failing in verification["failing_before"], verification
    assert failing not in verification["regressed"] + verification["new_failing"]
    assert any(f"{failing} failing before and after the change" in line for line in verification["lines"])
    # not blamed: no reason the review or the gate gives names it as something the change broke
    assert not any(failing in issue["message"] and "fail with the change" in issue["message"]
                   for issue in summary["issues"])
    assert code in (0, 50) and summary["exit_code"] == code


@pytest.mark.real_model
def test_a_change_that_breaks_a_passing_test_is_not_approved(tmp_path):
    root = _repo(tmp_path / "repo", {"util.py": UTIL, "test_util.py": TEST_ADD})

    code, summary = _run(root, "change add(a, b) in util.py so that it returns a - b")

    # the model's edit (greedy, on this machine `return -b`; the task asks for `a - b`) must break the
    # test for this to be the case under test: add(2, 3) is no longer 5
    value = subprocess.run([sys.executable, "-c", "from util import add; print(add(2, 3))"], cwd=root,
                           capture_output=True, text=True, check=False).stdout.strip()
    assert value != "5", f"the model's change kept add(2, 3) == 5: {(root / 'util.py').read_text()}"
    assert (code, summary["decision"]) == (50, "REJECTED")
    verification = summary["verification"]
    assert verification["status"] == "failed" and verification["regressed"] == ["test_util::test_add"]
    said = "test_util::test_add passed at the start of the run and fails with the change"
    assert said in verification["lines"]
