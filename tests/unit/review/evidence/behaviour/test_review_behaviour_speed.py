"""What keeps the behavioural diff and the model's part of a review short (issue 31's ≤ 20 s): one sandboxed
child for all the functions of a review within one time plan (restarted for the rest when a function brings
it down), Hypothesis' Unicode tables built once, no likelihood check where running both versions found no
difference, and no question where a finding already counts high in the function. Real child processes and
bubblewrap; a scripted model."""

from __future__ import annotations

import time

import pytest
from tests.helpers.review_fakes import ASKS_CHANGE, repo_with_branch, yes_no

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.evidence.behaviour.child import seed_hypothesis_tables
from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff
from acode.review.service import review_change
from acode.sandbox import find_sandbox

SANDBOX = find_sandbox()[0]
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason="bubblewrap cannot start here")

SLOW = "".join(f'''

def slow_{n}(x: int) -> int:
    time.sleep(0.05)
    return x + {n}
''' for n in range(3))


@needs_sandbox
def test_the_functions_of_a_review_share_one_time_plan(tmp_path):
    # three slow functions with no difference: each would search for `seconds` (6 s) on its own
    before = "import time\n" + SLOW
    after = before.replace("    return x + ", "    y = x\n    return y + ")
    context = branch_context(repo_with_branch(tmp_path / "r", {"slow.py": before}, {"slow.py": after}), "main")
    started = time.monotonic()
    diff = run_behaviour_diff(context, SANDBOX, Limits(seconds=6, crosshair_seconds=0, plan_seconds=3))
    took = time.monotonic() - started
    assert [r.status for r in diff.results] == ["same"] * 3
    assert all(r.tried >= 3 for r in diff.results)  # each function had its share of the plan
    assert took < 3 + 6  # the plan, the child's start and one last call of each function; not 3 x 6 s


CRASH = '''import os


def leave(x):
    os._exit(3)


def double(x):
    return x * 2


def half(x):
    return x // 2
'''


@needs_sandbox
def test_a_function_that_brings_the_child_down_is_listed_and_the_rest_are_still_compared(tmp_path):
    after = (CRASH.replace("os._exit(3)", "os._exit(4)").replace("return x * 2", "return x + x + 1")
             .replace("return x // 2", "return x >> 1"))
    context = branch_context(repo_with_branch(tmp_path / "r", {"crash.py": CRASH}, {"crash.py": after}), "main")
    by_name = {r.function.qualname: r for r in run_behaviour_diff(context, SANDBOX, Limits(crosshair_seconds=0)).results}
    assert by_name["leave"].status == "not_run" and "the runner failed" in by_name["leave"].why
    assert by_name["double"].status == "differs" and by_name["half"].status == "same"


def test_hypothesis_tables_are_built_once_and_copied_into_the_childs_folder(tmp_path):
    cache = tmp_path / "cache"
    first, second = tmp_path / "io1", tmp_path / "io2"
    first.mkdir()
    second.mkdir()
    assert seed_hypothesis_tables(first, cache)
    tables = sorted(p.name for p in (first / ".hypothesis" / "unicode_data").rglob("*.json.gz"))
    assert "charmap.json.gz" in tables and any(name.startswith("codec-") for name in tables)
    built = {p: p.stat().st_mtime_ns for p in cache.rglob("*.json.gz")}
    assert seed_hypothesis_tables(second, cache)  # from the cache: not built again
    assert {p: p.stat().st_mtime_ns for p in cache.rglob("*.json.gz")} == built
    assert sorted(p.name for p in (second / ".hypothesis" / "unicode_data").rglob("*.json.gz")) == tables


HELPERS = '''def discount(total: int) -> int:
    return total // 10 if total >= 100 else 0


def total(a: int, b: int) -> int:
    return a + b
'''
CHANGED = (HELPERS.replace("if total >= 100", "if total > 100")
           .replace("    return a + b", "    result = a + b\n    return result"))


def _review_helpers(tmp_path, p_yes_old: float, p_yes_new: float):
    """The helpers change reviewed with the diff; the model's question answers ``p_yes`` per side, and the
    likelihood finds the new bound far less likely than the old one."""
    repo = repo_with_branch(tmp_path / "r", {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS},
                            {"pkg/helpers.py": CHANGED}, message="Change the helpers")
    model = ScriptedModel([*ASKS_CHANGE, yes_no(p_yes_old), yes_no(p_yes_new)],
                          scorer=lambda prefix, line: -9.0 if "> 100" in line else -0.5)
    settings = ReviewerSettings(strategy="checks_only", behaviour={"crosshair_seconds": 0})
    return model, review_change(branch_context(repo, "main"), model, settings, behaviour=True)


@needs_sandbox
def test_the_likelihood_is_read_only_where_the_question_left_a_difference_open(tmp_path):
    model, result = _review_helpers(tmp_path, 0.5, 0.5)  # the question cannot tell
    scored = "".join(text for _, text in model.scored)
    assert "> 100" in scored and "result = a + b" not in scored  # total() ran the same: not read
    assert len(model.calls) == 6  # the questions first: the intent's four answers, the outcome once per side
    [behaviour] = [f for f in result.evidence if f.rule == "behaviour/changed"]
    assert behaviour.severity == "medium" and "cannot tell" in behaviour.message
    regression = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert [f.severity for f in regression] == ["high"]  # backed by the difference left open
    assert result.decision.verdict == "REJECTED"


@needs_sandbox
def test_no_likelihood_where_the_question_found_the_new_outcome_right(tmp_path):
    model, result = _review_helpers(tmp_path, 0.1, 0.9)
    assert model.scored == []  # no difference left open: a guess could only be medium
    assert [f.rule for f in result.all_findings() if f.rule == "review/regression"] == []
    assert result.decision.verdict == "APPROVED"


@needs_sandbox
def test_without_a_high_finding_in_the_function_the_question_is_still_asked(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS},
                            {"pkg/helpers.py": CHANGED}, message="Change the helpers")
    model = ScriptedModel([*ASKS_CHANGE, yes_no(0.8), yes_no(0.2)])  # no scorer: every version scores alike
    settings = ReviewerSettings(strategy="checks_only", behaviour={"crosshair_seconds": 0})
    result = review_change(branch_context(repo, "main"), model, settings, behaviour=True)
    assert len(model.calls) == 6
    [found] = [f for f in result.evidence if f.rule == "behaviour/changed"]
    assert found.severity == "high" and "finds the old outcome right" in found.message
