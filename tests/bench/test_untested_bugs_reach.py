"""The untested-bugs benchmark's environment and its reach figures (issue 49): the project's declared
runtime dependencies, as a user's environment has them, and where the executed evidence can reach."""

from __future__ import annotations

from benchmarks.review import untested_bugs_reach as reach
from benchmarks.tasks import real_commits_set as rcs


def test_the_runtime_dependencies_are_the_declared_ones_for_this_python_without_extras(tmp_path):
    flask = tmp_path / "flask"
    flask.mkdir()
    (flask / "pyproject.toml").write_text('[project]\nname = "flask"\ndependencies = [\n'
                                          '  "Werkzeug>=3.0.0", "click>=8.1.3",\n'
                                          '  "importlib-metadata>=3.6; python_version < \'3.10\'",\n]\n'
                                          '[project.optional-dependencies]\nasync = ["asgiref>=3.2"]\n')
    assert rcs.runtime_requirements(flask) == ["Werkzeug>=3.0.0", "click>=8.1.3"]
    old = tmp_path / "old"  # an sdist whose pyproject declares none: its PKG-INFO does
    old.mkdir()
    (old / "PKG-INFO").write_text("Name: marshmallow\nRequires-Dist: packaging>=17.0\n"
                                  'Requires-Dist: pytest ; extra == "tests"\n')
    assert rcs.runtime_requirements(old) == ["packaging>=17.0"]
    assert rcs.runtime_requirements(tmp_path) == []
    assert rcs.runtime_env(tmp_path) is None  # nothing declared: no environment to build


def _bug(name: str, verdict: str, functions: list[dict]) -> dict:
    return {"name": name, "half": "tune", "source": "real", "expected": "REJECTED", "verdict": verdict,
            "behaviour": {"functions": functions}}


def test_reach_counts_the_bugs_the_evidence_can_show_and_each_function_by_why():
    rows = [
        _bug("a revert", "APPROVED", [{"function": "f", "status": "differs", "tried": 3, "why": ""}]),
        _bug("b revert", "REJECTED", []),  # rejected by an analyzer
        _bug("c revert", "APPROVED", [
            {"function": "g", "status": "same", "tried": 150, "why": ""},
            {"function": "h", "status": "not_run", "tried": 0, "why": (
                "on the base: the module does not import (ModuleNotFoundError: No module named 'werkzeug')")},
            {"function": "i", "status": "not_run", "tried": 200,
             "why": "every input tried (200) raised on both sides: none it accepts was found"}]),
        _bug("d revert", "APPROVED", [{"function": "j", "status": "same", "tried": 4, "why": ""}]),
    ]
    got = reach.reach(rows)["tune real"]
    assert (got["bugs"], got["reachable"], got["ceiling_balanced"]) == (4, 2, 0.75)
    assert got["same"] == {"1-9 inputs": 1, "100+ inputs": 1}
    assert got["not_run"] == {"a dependency is missing (werkzeug)": 1, "raised on every input tried": 1}
    assert got["reachable_bugs"] == ["a revert", "b revert"]
    assert got["bugs_without_a_compared_function"] == 1


def _asked(name: str, expected: str, severity: str, status: str, metrics: dict) -> dict:
    return {"name": name, "half": "tune", "source": "logic", "expected": expected, "findings": [
        {"rule": "behaviour/changed", "severity": severity, "status": status, "file": "f.py", "line": 1,
         "metrics": metrics}]}


def test_the_judge_figures_count_decisions_right_and_wrong_and_where_the_lean_pointed():
    from benchmarks.review.untested_bugs_judge import judged

    rows = [
        # votes agreeing the old outcome is right, on a bug: a right decision
        _asked("a to_buggy", "REJECTED", "high", "confirmed", {"vote_yes_no": -1.5, "votes_mean": -2.0}),
        # votes agreeing the old outcome is right, on a sound change: a wrong one
        _asked("a to_canonical", "APPROVED", "high", "confirmed", {"vote_yes_no": 0.2, "votes_mean": -1.0}),
        # the one pair left open, leaning the right way
        _asked("b to_canonical", "APPROVED", "medium", "confirmed", {"delta": 0.3}),
        _asked("c to_canonical", "APPROVED", "info", "dismissed", {"delta": 1.2}),
    ]
    figures = judged(rows)["tune, logic"]
    assert figures == {"asked": 4, "decided_old": 2, "decided_new": 1, "no_decision": 1, "decisions_right": 2,
                       "decisions_wrong": 1, "lean_right": 3, "lean_wrong": 1, "pair_alone_right": 2,
                       "pair_alone_wrong": 0, "cancelled_at_0_right": 0, "cancelled_at_0_wrong": 0}
