"""The fix benchmarks' grading (benchmarks/harness/grading.py): a candidate resolves its task when every
FAIL_TO_PASS and every PASS_TO_PASS test passes, as SWE-bench grades; the whole suite's breakage; the
one-file tasks' hidden check decided the same way."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.harness.grading import broken_tests, grade
from benchmarks.tasks.fix_tasks import NOVEL, hidden_check, load_tasks, make_workspace


def test_resolved_only_when_every_fail_to_pass_and_pass_to_pass_test_passes():
    outcomes = {"t::flip": "PASSED", "t::keep": "PASSED", "t::other": "FAILED"}
    done = grade(outcomes, ["t::flip"], ["t::keep"])
    assert done.resolved
    assert (done.fail_to_pass, done.pass_to_pass) == ({"t::flip": "PASSED"}, {"t::keep": "PASSED"})
    broke_one = grade({**outcomes, "t::keep": "ERROR"}, ["t::flip"], ["t::keep"])
    assert not broke_one.resolved and broke_one.pass_to_pass == {"t::keep": "ERROR"}
    assert not grade({**outcomes, "t::flip": "FAILED"}, ["t::flip"], ["t::keep"]).resolved


def test_an_xfail_or_a_test_that_did_not_run_is_no_pass_and_a_test_in_both_lists_counts_once():
    assert not grade({"t::a": "XFAIL"}, ["t::a"]).resolved
    missing = grade({}, ["t::a"], ["t::b"])
    assert not missing.resolved and missing.fail_to_pass == {"t::a": "MISSING"}
    both = grade({"t::a": "PASSED"}, ["t::a"], ["t::a"])
    assert both.resolved and both.pass_to_pass == {}


def test_the_suite_is_broken_by_a_test_that_now_fails_or_whose_file_no_longer_imports_not_by_a_missing_one():
    before = {"a.py::x": "PASSED", "a.py::y": "FAILED", "b.py::z": "PASSED", "c.py::w": "PASSED",
              "d.py::v[12:00]": "PASSED"}
    after = {"a.py::x": "FAILED", "a.py::y": "FAILED", "b.py": "ERROR", "c.py::w": "PASSED",
             "d.py::v[12:01]": "PASSED"}
    assert broken_tests(before, after) == ["a.py::x", "b.py::z"]


def test_a_one_file_task_is_resolved_by_its_fix_and_not_by_its_bug(tmp_path: Path):
    task = load_tasks(task_set="novel")[0]
    row = next(r for r in map(json.loads, NOVEL.read_text().splitlines()) if r["task_id"] == task.task_id)
    root = make_workspace(task, tmp_path / "task")
    assert task.fail_to_pass == [f"check({task.entry_point})"]
    assert not hidden_check(task, root)
    (root / task.module).write_text(row["prompt"] + row["canonical_solution"])
    assert hidden_check(task, root)
