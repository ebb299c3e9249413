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
from tests.helpers.review_fakes import repo_with_branch

from acode.sandbox import find_sandbox

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


# ---- item 5: evidence the change makes unavailable counts against it ----

CALC = "def add(a, b):\n    return a + b\n\n\ndef neg(a):\n    return -a\n"
CALC_TESTS = ("from calc import add, neg\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
              "def test_neg():\n    assert neg(2) == -2\n")
# the side that finishes must do so within half the limit on a loaded 2-core machine (as HANG_LIMIT in
# test_review_test_contrast.py)
TEST_LIMIT = "20"

needs_sandbox = pytest.mark.skipif(find_sandbox()[0] is None, reason="the review runs tests only in the sandbox")


def calc_repo(path: Path, conftest: str) -> Path:
    """A change that breaks add() (test_add fails with it) and adds ``conftest`` as tests/conftest.py."""
    return repo_with_branch(path, {"src/calc.py": CALC, "tests/test_calc.py": CALC_TESTS},
                            {"src/calc.py": CALC.replace("a + b", "a - b"), "tests/conftest.py": conftest},
                            message="Tidy the test setup")


@pytest.mark.slow
@needs_sandbox
def test_a_conftest_that_makes_the_tests_hang_on_both_sides_counts_against_the_change(tmp_path):
    """Before: the change's conftest.py ran on both sides (the base runs the change's test files), both timed
    out, "nothing compared", and a change that breaks test_add was APPROVED."""
    conftest = "import time\n\n\ndef pytest_configure(config):\n    time.sleep(600)\n"
    code, report, _ = review(calc_repo(tmp_path / "r", conftest), "--run-tests", test_timeout_seconds=TEST_LIMIT)
    tests = report["tests"]
    assert tests["timed_out"] and not tests["base"]["timed_out"], tests  # the base ran with its own conftest
    [finding] = findings(report, "tests/regressed")
    assert f"did not finish in {TEST_LIMIT} s with the change" in finding["message"], finding
    assert "the base with its own test files finished" in finding["message"]
    assert "tests/conftest.py" in finding["message"] and finding["severity"] == "critical"
    assert code == 50 and report["decision"]["verdict"] == "REJECTED"


ON_THE_BASE = 'from pathlib import Path\n\n\ndef on_the_base(config):\n    return "a + b" in Path(config.rootpath, "src", "calc.py").read_text()\n\n\n'


@needs_sandbox
@pytest.mark.parametrize(("conftest", "said"), [
    ("def pytest_configure(config):\n    raise RuntimeError('no tests today')\n",
     ("ran no test with the change", "no tests today", "the base with its own test files ran tests")),
    (ON_THE_BASE + "def pytest_configure(config):\n    if on_the_base(config):\n        raise RuntimeError('not here')\n",
     ("tests.test_calc::test_add",)),
], ids=["both sides", "the base only"])
def test_a_conftest_that_stops_pytest_counts_against_the_change(tmp_path, conftest, said):
    """The same sabotage without the wait: pytest stops before any test on both sides ("could not run", nothing
    compared), or only on the base, where test_add then counted as failing before the change."""
    code, report, _ = review(calc_repo(tmp_path / "r", conftest), "--run-tests", test_timeout_seconds=TEST_LIMIT)
    [finding] = findings(report, "tests/regressed")
    assert all(part in finding["message"] for part in said), finding
    assert not report["tests"]["could_not_run"] and not report["tests"]["failing_before"], report["tests"]
    assert code == 50 and report["decision"]["verdict"] == "REJECTED"


PAGES = '''def page(items, number, size=10):
    """Page ``number`` (starting at 1) of ``items``."""
    start = (number - 1) * size
    return items[start : start + size]
'''
REFUSES = '''import sys

if any("behaviour_runner" in arg for arg in sys.argv):
    {action}


'''


@needs_sandbox
@pytest.mark.parametrize(("action", "said"), [
    ("raise ImportError('not in this environment')", "the module does not import (ImportError"),
    ("import time\n    time.sleep(600)", "importing the module did not finish in the child's time box"),
], ids=["raises", "hangs"])
@pytest.mark.slow
def test_a_module_that_will_not_import_under_the_behavioural_runner_counts_against_the_change(
        tmp_path, action, said):
    """Before: the function was listed as "could not be run" and never held against the change: APPROVED."""
    changed = REFUSES.format(action=action) + PAGES.replace("(number - 1) * size", "number * size")
    repo = repo_with_branch(tmp_path / "r", {"pages.py": PAGES}, {"pages.py": changed}, message="Change page")
    code, report, _ = review(repo, "--no-run-tests", behaviour__enabled="true", behaviour__plan_seconds="2")
    [finding] = findings(report, "behaviour/withheld")
    assert said in finding["message"] and "on the base it imported" in finding["message"], finding
    assert finding["severity"] == "high" and finding["file"] == "pages.py"
    assert report["behaviour"]["functions"][0]["withheld"]
    assert code == 50 and report["decision"]["verdict"] == "REJECTED"


@needs_sandbox
def test_a_new_dependency_missing_where_the_review_runs_is_not_held_against_the_change(tmp_path):
    """A sound change that starts using a package the review's environment lacks is not rejected for it."""
    changed = "import acode_no_such_package_xyz\n\n\n" + PAGES.replace("return items[start : start + size]",
                                                                   "return list(items[start : start + size])")
    repo = repo_with_branch(tmp_path / "r", {"pages.py": PAGES}, {"pages.py": changed}, message="Use a helper")
    code, report, _ = review(repo, "--no-run-tests", behaviour__enabled="true", behaviour__plan_seconds="2")
    assert not findings(report, "behaviour/withheld")
    [function] = report["behaviour"]["functions"]
    assert function["status"] == "not_run" and "not installed where the review runs" in function["why"]
    assert code == 0, report["decision"]
