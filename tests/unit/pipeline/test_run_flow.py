"""`acode run` end to end with the scripted model: every path through the orchestrator."""

from __future__ import annotations

import json

import pytest
from tests.helpers.run_helpers import (
    BAD_UTIL,
    GOOD_UTIL,
    TEST_UTIL,
    UTIL,
    approve,
    events,
    good_execution,
    make_repo,
    plan,
    reject,
    run_python,
    write,
    write_config,
)

from acode.errors import ModelTimeoutError
from acode.llm.scripted import ScriptedModel
from acode.paths import ProjectPaths
from acode.pipeline.human import HumanGate
from acode.pipeline.stages import load_state
from acode.pipeline.stops import RunError
from acode.store.audit import AuditLog
from acode.store.summaries import SummaryStore


@pytest.fixture
def repo(tmp_path):
    root = make_repo(tmp_path / "repo")
    write_config(root)
    return root


def test_approve_path_persists_plan_events_and_summary(repo):
    model = ScriptedModel([plan("add is_even(n) to util.py and test_util.py"), *good_execution(), *approve()])
    outcome = run_python(repo, model)

    assert (outcome.status, outcome.exit_code) == ("approved", 0)
    assert model.remaining == 0
    assert (repo / "util.py").read_text() == GOOD_UTIL
    run_dir = ProjectPaths(repo).acode_dir / "runs" / outcome.session_id
    assert "add is_even(n) to util.py" in (run_dir / "plan_v1.md").read_text()
    assert json.loads((run_dir / "plan_v1.json").read_text())["plan"]["steps"][0]["description"].startswith(
        "add is_even"
    )

    stored = SummaryStore(ProjectPaths(repo).db_file).get(outcome.session_id)
    assert stored["decision"] == "APPROVED" and stored["cycles"] == 1
    changes = {c["path"]: c for c in stored["changes"]}
    assert changes["util.py"]["mark"] == "~" and changes["util.py"]["added"] == 4
    assert changes["test_util.py"]["mark"] == "+" and changes["test_util.py"]["added"] == 6
    assert set(stored["levels"]) == {
        "intent_alignment",
        "code_quality",
        "completeness",
        "consistency",
        "safety",
    }
    assert stored["verification"]["passed"] and "pytest" in stored["verification"]["checks"][0]["command"]
    assert stored["steps"][0]["files_changed"] == ["test_util.py", "util.py"]
    assert stored["duration_s"] >= 0 and stored["ended_at"]

    kinds = [e["event"] for e in events(repo, outcome.session_id)]
    assert kinds[0] == "run_start" and kinds[-1] == "run_end"
    entered = [e["stage"] for e in events(repo, outcome.session_id) if e["event"] == "stage_enter"]
    assert entered == ["plan", "execute", "verify", "review"]
    decision = next(e for e in events(repo, outcome.session_id) if e["event"] == "review_decision")
    assert decision["decision"] == "APPROVED" and decision["levels"] and decision["issues"] == []


def test_rejection_replans_with_the_feedback_then_approves(repo):
    model = ScriptedModel(
        [
            plan("add is_even(n) to util.py"),
            write("util.py", BAD_UTIL),
            "Added is_even.",
            *reject(
                "return n % 2 == 1", "is_even returns True for odd numbers", "compare with 0 instead of 1"
            ),
            plan("fix is_even to compare n % 2 with 0", "add test_util.py"),
            write("util.py", GOOD_UTIL),
            "Fixed.",
            write("test_util.py", TEST_UTIL),
            "Test added.",
            *approve(),
        ]
    )
    outcome = run_python(repo, model)

    assert (outcome.status, outcome.exit_code) == ("approved", 0)
    assert outcome.summary["cycles"] == 2 and outcome.summary["plan_versions"] == 2
    planner_calls = [c for c in model.calls if c["schema"] and "steps" in json.dumps(c["schema"])]
    second_prompt = planner_calls[1]["messages"][-1].content
    assert "is_even returns True for odd numbers" in second_prompt
    assert "compare with 0 instead of 1" in second_prompt and "Previous plan (version 1)" in second_prompt
    run_dir = ProjectPaths(repo).acode_dir / "runs" / outcome.session_id
    plan_v2 = (run_dir / "plan_v2.md").read_text()
    assert (
        "Review feedback this plan addresses" in plan_v2 and "is_even returns True for odd numbers" in plan_v2
    )
    assert (
        json.loads((run_dir / "plan_v2.json").read_text())["feedback"][0]["suggestion"]
        == "compare with 0 instead of 1"
    )
    reviews = outcome.summary["reviews"]
    assert [r["decision"] for r in reviews] == ["REJECTED", "APPROVED"]
    assert reviews[0]["levels"]["code_quality"] == "poor"
    kinds = [e["event"] for e in events(repo, outcome.session_id)]
    assert "replan" in kinds


def test_cycle_limit_escalates_and_stops_with_exit_50_when_nobody_can_be_asked(repo):
    bad = ["return n % 2 == 1", "wrong parity", "use == 0"]
    model = ScriptedModel(
        [
            plan("add is_even"),
            write("util.py", BAD_UTIL),
            "done",
            *reject(*bad),
            plan("fix is_even"),
            write("util.py", BAD_UTIL),
            "done",
            *reject(*bad),
        ]
    )
    outcome = run_python(repo, model, max_cycles=2)

    assert (outcome.status, outcome.exit_code) == ("rejected", 50)
    assert outcome.summary["decision"] == "REJECTED" and outcome.summary["cycles"] == 2
    assert outcome.summary["issues"][0]["message"] == "wrong parity"
    escalation = [e for e in events(repo, outcome.session_id) if e["event"] == "escalation"]
    assert escalation and "cycle 2 of 2" in escalation[0]["reason"]
    assert model.remaining == 0


def test_verifier_failure_goes_back_to_the_executor_with_the_output(repo):
    model = ScriptedModel(
        [
            plan("add is_even and its test"),
            write("util.py", BAD_UTIL),
            write("test_util.py", TEST_UTIL),
            "Added.",
            write("util.py", GOOD_UTIL),
            "Fixed the parity.",
            *approve(),
        ]
    )
    outcome = run_python(repo, model)

    assert outcome.status == "approved"
    fix_prompt = next(
        c["messages"][-1].content
        for c in model.calls
        if "verifier ran the project's checks" in c["messages"][-1].content
    )
    assert "assert is_even(2)" in fix_prompt or "AssertionError" in fix_prompt
    log = events(repo, outcome.session_id)
    verifications = [e for e in log if e["event"] == "verification"]
    assert [v["passed"] for v in verifications] == [False, True]
    assert any(e["event"] == "verify_retry" and e["attempt"] == 1 for e in log)
    steps = [e for e in log if e["event"] == "step_result"]
    assert steps[-1]["index"] == 0 and steps[-1]["files_changed"] == ["util.py"]


@pytest.mark.slow
def test_verification_retries_are_bounded_then_the_reviewer_decides(repo):
    write_config(repo, pipeline={"max_verify_retries": 1})
    model = ScriptedModel(
        [
            plan("add is_even and its test"),
            write("util.py", BAD_UTIL),
            write("test_util.py", TEST_UTIL),
            "Added.",
            "I could not fix it.",
            "Still nothing to change.",  # the single retry changes nothing, even when nudged
            *reject("return n % 2 == 1", "the test fails", "fix the parity"),
        ]
    )
    outcome = run_python(repo, model, max_cycles=1)
    assert outcome.exit_code == 50
    assert [
        v["passed"] for v in [e for e in events(repo, outcome.session_id) if e["event"] == "verification"]
    ] == [False, False]


def test_override_with_a_reason_is_audited(repo):
    model = ScriptedModel(
        [
            plan("add is_even"),
            write("util.py", BAD_UTIL),
            "done",
            *reject("return n % 2 == 1", "wrong parity", "use == 0"),
        ]
    )
    outcome = run_python(repo, model, max_cycles=1, override_reason="checked by hand: parity is intended")

    assert (outcome.status, outcome.exit_code) == ("approved", 0)
    assert outcome.summary["decision"] == "APPROVED (override)"
    assert outcome.summary["override"]["reason"] == "checked by hand: parity is intended"
    entries = AuditLog(ProjectPaths(repo).db_file).entries(outcome.session_id)
    override = next(e for e in entries if e["kind"] == "override")
    assert override["reason"] == "checked by hand: parity is intended" and override["at"]
    assert (
        override["review"]["decision"] == "REJECTED"
        and override["review"]["issues"][0]["message"] == "wrong parity"
    )
    assert any(e["event"] == "override" for e in events(repo, outcome.session_id))


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_empty_override_reason_is_refused(repo, reason):
    with pytest.raises(RunError) as refused:
        HumanGate(override_reason=reason)
    assert refused.value.exit_code == 2 and "--override-reason" in refused.value.message
    with pytest.raises(ValueError):
        AuditLog(ProjectPaths(repo).db_file).append("override", "s", "override", reason=reason)


def test_require_policy_without_anyone_to_ask_exits_51_unless_approved(repo):
    write_config(repo, reviewer={"human_review": "require"})
    model = ScriptedModel([plan("add is_even"), *good_execution(), *approve()])
    declined = run_python(repo, model)
    assert (declined.status, declined.exit_code) == ("declined", 51)
    assert "ACODE-REVIEW-004" in declined.summary["error"]

    repo2 = make_repo(repo.parent / "repo2")
    write_config(repo2, reviewer={"human_review": "require"})
    approved = run_python(
        repo2, ScriptedModel([plan("add is_even"), *good_execution(), *approve()]), approve=True
    )
    assert approved.exit_code == 0
    entry = AuditLog(ProjectPaths(repo2).db_file).entries(approved.session_id)[0]
    assert (entry["kind"], entry["decision"]) == ("human_decision", "approve")


def test_review_timeout_exits_52_and_keeps_the_partial_result(repo):
    write_config(repo, reviewer={"timeout_seconds": 1})
    model = ScriptedModel(
        [
            plan("add is_even"),
            *good_execution(),
            ModelTimeoutError("ACODE-MODEL-030", "the model took too long"),  # the proposal: nothing assessed
        ]
    )
    outcome = run_python(repo, model)

    assert (outcome.status, outcome.exit_code) == ("timeout", 52)
    summary = SummaryStore(ProjectPaths(repo).db_file).get(outcome.session_id)
    assert summary["review_partial"]
    levels = summary["levels"]
    assert set(levels.values()) == {"timeout"}
    assert "ACODE-REVIEW-003" in summary["error"]
    log = events(repo, outcome.session_id)
    assert any(e["event"] == "timeout" and e["stage"] == "review" for e in log)
    from acode.store.reviews import ReviewStore

    stored = ReviewStore(ProjectPaths(repo).db_file).get(summary["reviews"][0]["review_id"])
    assert stored.source == "run" and stored.result.status == "timeout"


def test_dirty_tree_is_refused_unless_allowed(repo):
    (repo / "util.py").write_text(UTIL + "# local edit\n")
    with pytest.raises(RunError) as refused:
        run_python(repo, ScriptedModel([]))
    assert refused.value.code == "ACODE-RUN-001" and "util.py" in refused.value.message

    outcome = run_python(
        repo, ScriptedModel([plan("add is_even"), *good_execution(), *approve()]), allow_dirty=True
    )
    assert outcome.exit_code == 0
    assert load_state(repo, outcome.session_id).dirty_snapshot


def test_ctrl_c_leaves_a_resumable_session(repo):
    def interrupt(messages, tools, schema):
        raise KeyboardInterrupt

    first = ScriptedModel(
        [plan("add is_even", "add the test"), write("util.py", GOOD_UTIL), "done", interrupt]
    )
    outcome = run_python(repo, first)
    assert (outcome.status, outcome.exit_code) == ("interrupted", 130)
    state = load_state(repo, outcome.session_id)
    assert state.next_stage == "execute" and [r.index for r in state.step_results if r.status == "done"] == [
        1
    ]

    from acode.config import load_settings
    from acode.pipeline.orchestrator import resume_run
    from acode.tools.builtin import default_registry

    second = ScriptedModel([write("test_util.py", TEST_UTIL), "Test added.", *approve()])
    resumed = resume_run(
        repo,
        state,
        settings=load_settings(repo),
        model=second,
        tools=default_registry(),
        human=HumanGate(),
        db_path=ProjectPaths(repo).db_file,
    )
    assert (resumed.status, resumed.exit_code) == ("approved", 0)
    assert second.remaining == 0 and (repo / "test_util.py").read_text() == TEST_UTIL


def test_a_failing_review_or_a_stage_timeout_ends_with_exit_1_and_a_summary(repo):
    failed = run_python(
        repo, ScriptedModel([plan("add is_even"), *good_execution(), {"error": "backend crashed"}])
    )
    assert (failed.status, failed.exit_code) == ("failed", 1)
    assert (
        failed.summary["error"].startswith("[ACODE-REVIEW-001]")
        and "backend crashed" in failed.summary["error"]
    )

    repo2 = make_repo(repo.parent / "repo2")
    write_config(repo2)
    slow = run_python(repo2, ScriptedModel([ModelTimeoutError("ACODE-MODEL-030", "no answer within 600 s")]))
    assert (slow.status, slow.exit_code) == ("failed", 1) and "ACODE-RUN-020" in slow.summary["error"]
    assert any(e["event"] == "timeout" and e["stage"] == "plan" for e in events(repo2, slow.session_id))
    assert SummaryStore(ProjectPaths(repo2).db_file).get(slow.session_id)["status"] == "failed"


def test_a_step_claimed_done_without_an_edit_is_sent_back_once(repo):
    model = ScriptedModel(
        [
            plan("add is_even and its test"),
            "Done, is_even is added.",  # no file was written: nudged
            write("util.py", GOOD_UTIL),
            write("test_util.py", TEST_UTIL),
            "Now it is really done.",
            *approve(),
        ]
    )
    outcome = run_python(repo, model)
    assert outcome.exit_code == 0 and (repo / "util.py").read_text() == GOOD_UTIL
    nudge = model.calls[2]["messages"][-1].content
    assert "without changing any file" in nudge
    step = outcome.summary["steps"][0]
    assert step["files_changed"] == ["test_util.py", "util.py"]
