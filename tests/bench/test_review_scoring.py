"""The accuracy benchmark's re-decision and tuning (no model): figures come from stored findings."""

from __future__ import annotations

from benchmarks.review.review_scoring import in_scope, objective, rescore, summarise, tune, with_evidence_from

from acode.config.review import ReviewerSettings


def record(task_id: str, expected: str, delta_mean: float, *, added: int = 1, bug_type: str = "value misuse") -> dict:
    finding = {"dimension": "intent_alignment", "source": "model", "rule": "review/regression", "severity": "high",
               "file": "f.py", "line": 3, "grounding": "changed", "confidence": 0.9, "status": "confirmed",
               "message": "", "quote": "", "metrics": {"delta_sum": delta_mean * 10, "delta_mean": delta_mean,
                                                       "removed_lines": 1.0, "added_lines": float(added)}}
    return {"task_id": task_id, "expected": expected, "bug_type": bug_type, "design": "checks_only+likelihood",
            "verdict": "REJECTED", "status": "complete", "seconds": 1.0, "localised": True,
            "levels": {"intent_alignment": "poor"}, "findings": [finding], "tokens": {"evaluated": 10, "reused": 5}}


def settings(**regression) -> ReviewerSettings:
    return ReviewerSettings(regression=regression)


def test_a_stored_review_is_re_decided_by_the_margin_and_the_edit_limit():
    row = record("Python/1", "REJECTED", -0.2, added=3)
    assert rescore(row, settings(statistic="mean", margin=0.1)) == "REJECTED"
    assert rescore(row, settings(statistic="mean", margin=0.3)) == "APPROVED"
    assert rescore(row, settings(statistic="sum", margin=1.0)) == "REJECTED"  # delta_sum is -2.0
    assert not in_scope(row["findings"][0], 2) and in_scope(row["findings"][0], 3) and in_scope(row["findings"][0], 0)
    assert rescore(row, settings(statistic="mean", margin=0.1, max_edit_lines=2)) == "APPROVED"
    inserted = record("Python/1", "REJECTED", -0.2)
    inserted["findings"][0]["metrics"]["removed_lines"] = 0.0
    assert not in_scope(inserted["findings"][0], 0) and rescore(inserted, settings(statistic="mean")) == "APPROVED"


def test_the_objective_weighs_bugs_fixes_and_real_commits_alike():
    rows = [{**record("Python/0", "REJECTED", -1), "verdict": "REJECTED"},
            {**record("Python/0", "APPROVED", 1), "verdict": "APPROVED"},
            *({**record(f"commit/{i}", "APPROVED", -1), "verdict": "REJECTED"} for i in range(3))]
    assert objective(rows) == (1 + 1 + 0) / 3
    figures = summarise(rows)
    assert figures["confusion"] == {"buggy_rejected": 1, "buggy_approved": 0, "sound_approved": 1, "sound_rejected": 3}
    assert figures["balanced_accuracy"] == (1 + 0.25) / 2 and figures["false_reject_rate"] == 0.75


def test_tuning_chooses_on_even_tasks_and_reports_odd_tasks_and_untuned_sources():
    rows = []
    for n in range(8):  # bugs drop the mean by 0.3, fixes raise it, real commits drop it by 0.1
        rows += [record(f"Python/{n}", "REJECTED", -0.3), record(f"Python/{n}", "APPROVED", 0.3),
                 record(f"commit/{n}", "APPROVED", -0.1), record(f"Novel/{n}", "REJECTED", -0.05)]
    out = tune(rows)["designs"]["checks_only+likelihood"]
    chosen = out["chosen_on_tune"]
    scale = 10 if chosen["statistic"] == "sum" else 1  # delta_sum is ten times delta_mean here
    assert 0.1 * scale <= chosen["margin"] < 0.3 * scale and chosen["tune_objective"] == 1.0
    assert out["report"]["humanevalpack"]["reviews"] == 8  # odd tasks, both directions
    assert out["report"]["commits"]["false_reject_rate"] == 0.0
    assert out["report"]["novel"]["reviews"] == 8 and out["report"]["novel"]["recall_on_buggy"] == 0.0


def test_evidence_from_another_run_replaces_the_evidence_and_keeps_the_model_findings():
    row = {**record("Security/1", "REJECTED", 0.5), "direction": "to_buggy",
           "levels": {"intent_alignment": "good", "safety": "good"}}
    assert rescore(row, settings(statistic="mean", margin=0.075)) == "APPROVED"  # the likelihood saw nothing
    sql = {"dimension": "safety", "source": "ruff", "rule": "ruff/S608", "severity": "high", "file": "f.py",
           "line": 3, "grounding": "changed", "confidence": 1.0, "status": "confirmed", "message": "", "quote": ""}
    other = {"task_id": "Security/1", "direction": "to_buggy", "findings": [sql]}
    [swapped] = with_evidence_from([row], [other])
    assert [f["rule"] for f in swapped["findings"]] == ["review/regression", "ruff/S608"]
    assert rescore(swapped, settings(statistic="mean", margin=0.075)) == "REJECTED"
