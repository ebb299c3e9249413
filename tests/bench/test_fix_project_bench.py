"""The real-project fix benchmark's task builder (benchmarks/tasks/fix_project_tasks.py): which tests flip,
the node ids a task names, the tune/report split, and one task built end to end from a small fix."""

from __future__ import annotations

import sys
from pathlib import Path

from benchmarks.harness.grading import fail_to_pass_tests
from benchmarks.tasks import fix_project_tasks as fpt
from benchmarks.tasks import real_commits_set as rcs

SUMMARY_BEFORE = """\
..F.F
=========================== short test summary info ============================
PASSED tests/test_calc.py::test_add
PASSED tests/test_calc.py::test_mean[1-1]
FAILED tests/test_calc.py::test_mean[1-2] - AssertionError: assert 1 == 1.5
FAILED tests/test_calc.py::test_divide - ZeroDivisionError: division by zero
ERROR tests/test_calc.py::test_fixture - fixture 'db' not found
FAILED tests/test_calc.py::test_broken_both
2 failed, 2 passed in 0.05s
"""
SUMMARY_AFTER = """\
PASSED tests/test_calc.py::test_add
PASSED tests/test_calc.py::test_mean[1-1]
PASSED tests/test_calc.py::test_mean[1-2]
PASSED tests/test_calc.py::test_divide
ERROR tests/test_calc.py::test_fixture - fixture 'db' not found
FAILED tests/test_calc.py::test_broken_both
"""


def test_the_tests_that_fail_before_and_pass_after_flip():
    before, after = fpt.parse_outcomes(SUMMARY_BEFORE), fpt.parse_outcomes(SUMMARY_AFTER)
    assert before["tests/test_calc.py::test_mean[1-2]"] == "FAILED"
    assert before["tests/test_calc.py::test_fixture"] == "ERROR"
    assert fail_to_pass_tests(before, after) == ["tests/test_calc.py::test_divide",
                                                 "tests/test_calc.py::test_mean[1-2]"]


def test_a_parametrized_test_is_named_by_its_function_only_when_all_its_parameters_pass_after():
    after = fpt.parse_outcomes(SUMMARY_AFTER)
    flipped = ["tests/test_calc.py::test_divide", "tests/test_calc.py::test_mean[1-2]"]
    named = fpt.named_ids(flipped, after)
    assert named == ["tests/test_calc.py::test_divide", "tests/test_calc.py::test_mean"]
    after["tests/test_calc.py::test_mean[2-2]"] = "FAILED"
    assert fpt.named_ids(flipped, after)[1] == "tests/test_calc.py::test_mean[1-2]"


def test_the_task_names_a_parameter_with_a_space_as_the_shell_takes_it():
    node = "tests/test_utils.py::test_pager[test6- cat ]"
    task = fpt.ProjectTask("click 8.2.0->8.2.1", "click", "click", [node], [], {}, "", "")
    prompt = task.prompt(Path("/env/bin/python"))
    assert prompt.endswith(f"(run them with: /env/bin/python -m pytest -q '{node}')")


def test_a_test_module_that_cannot_be_imported_is_a_collection_error():
    output = "ERROR tests/test_new.py - ImportError: cannot import name 'added'\n"
    assert fpt.collection_errors(output, ["tests/test_new.py", "tests/test_calc.py"]) == ["tests/test_new.py"]


def test_the_one_calls_module_is_a_project_frame_never_an_installed_package(tmp_path):
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "core.py").write_text("x = 1\n")
    site = tmp_path / "venv" / "lib" / "site-packages" / "werkzeug"
    site.mkdir(parents=True)
    (site / "headers.py").write_text("y = 2\n")
    output = (f"tests/test_basic.py:561: in test_vary\n    assert 1\n{tmp_path}/src/pkg/core.py:3: in get\n"
              f"    raise KeyError\n{site}/headers.py:73: in __getitem__\n    raise KeyError\n")
    root = tmp_path
    assert fpt.module_for(root, ["tests/test_basic.py"], output) == "src/pkg/core.py"
    only_outside = f"tests/test_basic.py:561: in test_vary\n{site}/headers.py:73: in __getitem__\n"
    assert fpt.module_for(root, ["tests/test_basic.py"], only_outside) == ""


def test_the_split_is_by_name_stable_and_uses_both_halves():
    names = [f"project 1.{i}->1.{i + 1}" for i in range(60)]
    halves = [fpt.half_of(n) for n in names]
    assert halves == [fpt.half_of(n) for n in names]
    assert 15 < halves.count("tune") < 45 and set(halves) == {"tune", "report"}


BUGGY = ("def mean(values):\n    return sum(values) / (len(values) + 1)\n\n\n"
         "def add(a, b):\n    return a + b\n")
FIXED = BUGGY.replace("(len(values) + 1)", "len(values)")
TESTS = ("from pkg.calc import add, mean\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
         "def test_mean():\n    assert mean([1, 2]) == 1.5\n")


def test_a_task_is_built_from_a_fix_whose_test_flips(tmp_path):
    before = tmp_path / "before"
    (before / "src" / "pkg").mkdir(parents=True)
    (before / "src" / "pkg" / "__init__.py").write_text("")
    (before / "src" / "pkg" / "calc.py").write_text(BUGGY)
    fix = rcs.Fix(project="pkg", name="pkg 1.0->1.1", message="Fix mean", before=before,
                  changes={"src/pkg/calc.py": (BUGGY, FIXED), "tests/test_calc.py": (None, TESTS)})
    task = fpt.build_task(fix, tmp_path / "work", env_bin=Path(sys.executable).parent)
    assert isinstance(task, fpt.ProjectTask), task
    assert task.failing == task.flipped == ["tests/test_calc.py::test_mean"]
    assert task.expected == {"tests/test_calc.py::test_add": "PASSED",
                             "tests/test_calc.py::test_mean": "PASSED"}
    assert task.module == "src/pkg/calc.py"  # the test file's namesake
    assert "FAILED tests/test_calc.py::test_mean" in task.failing_output and "1.5" in task.failing_output
    root = fpt.build_repo(fix, tmp_path / "solve")
    python = fpt.project_python(root, Path(sys.executable).parent, tmp_path / "solve-venv")
    buggy = fpt.solved(task, python, root)  # the repository has the bug
    assert not buggy.resolved
    assert (buggy.fail_to_pass, buggy.pass_to_pass) == ({"tests/test_calc.py::test_mean": "FAILED"},
                                                        {"tests/test_calc.py::test_add": "PASSED"})
    (root / "src" / "pkg" / "calc.py").write_text(FIXED)
    assert fpt.solved(task, python, root).resolved


def test_a_fix_without_a_flipping_test_is_dropped_with_its_reason(tmp_path):
    before = tmp_path / "before"
    (before / "src" / "pkg").mkdir(parents=True)
    (before / "src" / "pkg" / "__init__.py").write_text("")
    (before / "src" / "pkg" / "calc.py").write_text(BUGGY)
    only_add = TESTS.split("\n\n\ndef test_mean")[0] + "\n"
    fix = rcs.Fix(project="pkg", name="pkg 1.1->1.2", message="Fix mean", before=before,
                  changes={"src/pkg/calc.py": (BUGGY, FIXED), "tests/test_calc.py": (None, only_add)})
    reason = fpt.build_task(fix, tmp_path / "work", env_bin=Path(sys.executable).parent)
    assert reason == "no test flips (1 tests; 0 not passing on the fixed tree)"
    no_tests = rcs.Fix(project="pkg", name="pkg 1.2->1.3", message="Fix", before=before,
                       changes={"src/pkg/calc.py": (BUGGY, FIXED)})
    assert fpt.build_task(no_tests, tmp_path / "w2") == "the fix changes no test module"


def test_both_fix_benchmarks_report_wins_losses_and_per_call_figures_the_same_way():
    from benchmarks.fix import fix_report

    def arm(outcome, seconds, calls, tokens):
        return {"outcome": outcome, "seconds": seconds, "model_calls": calls, "model_seconds": seconds - 5,
                "prompt_tokens_evaluated": 100, "completion_tokens": tokens}

    records = [{"task_id": "a", "acode": arm("solved", 60, 2, 400),
                "oneshot": arm("tests still fail", 30, 1, 300)},
               {"task_id": "b", "acode": arm("limit", 420, 3, 900), "oneshot": arm("solved", 40, 1, 350)},
               {"task_id": "c", "acode": arm("solved", 50, 1, 200), "oneshot": arm("solved", 20, 1, 250)}]
    report = fix_report.compare(records, ["acode", "oneshot"])
    assert report["per_task"] == {"wins": ["a"], "losses": ["b"], "both": ["c"]}
    acode = report["arms"]["acode"]
    assert acode["solved"] == 2 and acode["median_s"] == 60
    assert acode["model_seconds_per_call"] == round((55 + 415 + 45) / 6, 1)
    assert acode["completion_tokens_per_call"] == round(1500 / 6)
    assert report["acode_minus_oneshot_points"] == 0.0


def test_the_report_gives_cpu_seconds_which_count_the_children_a_run_waited_for():
    """CPU seconds, for a ratio that hardly moves with what else the machine runs: this process's and its
    ended children's (an acode run and the tests it ran)."""
    import subprocess
    import sys

    from benchmarks.fix import fix_report

    before = fix_report.cpu_seconds()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    assert fix_report.cpu_seconds() - before > 0.05  # a child's work, counted once it ended

    def arm(outcome, seconds, cpu):
        return {"outcome": outcome, "seconds": seconds, "cpu_s": cpu, "model_calls": 1,
                "prompt_tokens_evaluated": 100, "completion_tokens": 100}

    records = [{"task_id": t, "acode": arm("solved", 90, cpu), "oneshot": arm("solved", 30, 20)}
               for t, cpu in (("a", 30), ("b", 40), ("c", 50))]
    report = fix_report.compare(records, ["acode", "oneshot"])
    assert report["arms"]["acode"]["median_cpu_s"] == 40 and report["median_cpu_ratio"] == 2.0
    assert report["median_time_ratio"] == 3.0
    del records[0]["oneshot"]["cpu_s"]  # a record without it (an older run): no CPU figure, no ratio
    assert "median_cpu_ratio" not in fix_report.compare(records, ["acode", "oneshot"])


def test_both_arms_run_with_the_same_thread_count():
    """The one call's model is loaded once and acode's in each run: both get the count fixed when the
    benchmark starts (or --threads), so the time ratio compares the fixer, not the thread counts."""
    from benchmarks.fix import fix_report

    assert fix_report.arm_threads(3) == 3 and fix_report.arm_threads(0) >= 1
    env = fix_report.settings_env(["agent.fix.mutants=0"], 900, threads=1)
    assert env == {"ACODE_AGENT__FIX__MUTANTS": "0", "ACODE_MODEL__TIMEOUT_SECONDS": "900",
                   "ACODE_MODEL__THREADS": "1"}
    # a --set of its own wins
    assert fix_report.settings_env(["model.threads=2"], threads=1)["ACODE_MODEL__THREADS"] == "2"


def test_two_versions_that_share_a_prefix_are_extracted_apart(tmp_path):
    """python-dotenv 1.1.0 and 1.1.1 were both extracted into python-dotenv-1.1.part: two set builders
    at once corrupted each other's trees."""
    trees = [tmp_path / f"python-dotenv-{version}" for version in ("1.1.0", "1.1.1", "1.10")]
    partial = [rcs.partial_tree(tree) for tree in trees]
    assert len(set(partial)) == 3
    assert [p.name for p in partial] == [f"{t.name}.part" for t in trees]
    assert {p.parent for p in partial} == {tmp_path}
