"""The review plans its work to its time limit: measured speed, regions that fit, diffs cut to the time
left, proposals left out when too little fits, and every omission named."""

from __future__ import annotations

import pytest
from tests.helpers.review_fakes import BUGGY, SOUND, repo_with_branch

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Usage
from acode.review.change.git_context import branch_context
from acode.review.judging.metered import MeteredModel
from acode.review.judging.regression import compare_regions, plan_regions
from acode.review.judging.time_plan import Pace, diff_tokens_for, proposal_seconds
from acode.review.service import review_change


def test_pace_measures_prompt_speed_on_scoring_calls_and_generation_on_the_rest():
    pace = Pace(prompt_prior=50.0, generate_prior=8.0)
    assert pace.seconds(500, 16) == pytest.approx(500 / 50 + 16 / 8)
    pace.observe(Usage(prompt_tokens_evaluated=1000, seconds=5.0))  # scoring: 200 tokens/s
    assert pace.prompt_rate() == pytest.approx(200.0)
    pace.observe(Usage(prompt_tokens_evaluated=400, completion_tokens=40, seconds=6.0))  # 2 s reading, 4 s writing
    assert pace.generate_rate() == pytest.approx(10.0)
    pace.observe(Usage(prompt_tokens_evaluated=0, seconds=0.0))  # no time measured: ignored
    assert len(pace.calls) == 2


def test_the_diff_the_proposals_can_read_shrinks_with_the_time_left():
    pace = Pace(prompt_prior=100.0, generate_prior=10.0)
    shape = {"answer_tokens": 200, "findings": 3}
    plenty, little = diff_tokens_for(pace, 100.0, 500, **shape), diff_tokens_for(pace, 30.0, 500, **shape)
    assert plenty > little
    # what fits is what the estimate says takes that long (every diff token is read once: the checks reuse it)
    assert proposal_seconds(pace, 500 + plenty, **shape) == pytest.approx(100.0, abs=0.05)


def _slow(model: ScriptedModel, prompt: float, generate: float) -> ScriptedModel:
    model.tokens_per_second = (prompt, generate)
    return model


def _many_edits(tmp_path):
    before = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(6))
    after = "".join(f"def f{i}(x):\n    return x - {i}\n\n\n" for i in range(6))
    return branch_context(repo_with_branch(tmp_path / "r", {"m.py": before}, {"m.py": after}))


def test_regions_beyond_the_time_plan_are_left_out_and_counted(tmp_path):
    context = _many_edits(tmp_path)
    model = MeteredModel(_slow(ScriptedModel([], scorer=lambda prefix, line: -1.0), 10.0, 1.0),
                         Pace(prompt_prior=10.0, generate_prior=1.0))
    settings = ReviewerSettings().regression
    unlimited = plan_regions(context, model, settings)
    assert len(unlimited.regions) == 6 and not unlimited.left_out.get("time")
    seconds = unlimited.estimated_seconds / 2
    planned = plan_regions(context, model, settings, seconds=seconds)
    assert 0 < len(planned.regions) < 6 and planned.left_out["time"] == 6 - len(planned.regions)
    assert planned.estimated_seconds <= seconds
    assert "beyond the time plan" in planned.note(settings.max_edit_lines)


class _Quick(ScriptedModel):
    """Reads 1,000 tokens a second: much faster than the prior the plan was made with."""

    def score_text(self, prefix, text, **kwargs):
        score = super().score_text(prefix, text, **kwargs)
        score.usage.seconds = score.usage.prompt_tokens_evaluated / 1000
        return score


def test_regions_the_plan_deferred_are_compared_when_the_measured_speed_leaves_time(tmp_path):
    context = _many_edits(tmp_path)
    model = MeteredModel(_Quick([], scorer=lambda prefix, line: -1.0), Pace(prompt_prior=10.0, generate_prior=1.0))
    settings = ReviewerSettings().regression
    seconds = plan_regions(context, model, settings).estimated_seconds / 2  # at the prior: half fit
    planned = plan_regions(context, model, settings, seconds=seconds)
    assert 0 < len(planned.regions) < 6 and len(planned.deferred) == planned.left_out["time"]
    found, said = [], []
    compare_regions(context, model, settings, planned, timeout=lambda: 60.0, out=found,
                    seconds_left=lambda: seconds, progress=said.append)
    assert len(found) == 6 and planned.left_out["time"] == 0 and planned.note(settings.max_edit_lines) == ""
    assert any("time was left" in line for line in said)
    # at the prior's pace they would not have fitted: still left out, still counted
    slow = MeteredModel(_slow(ScriptedModel([], scorer=lambda prefix, line: -1.0), 10.0, 1.0),
                        Pace(prompt_prior=10.0, generate_prior=1.0, known=True))
    again = plan_regions(context, slow, settings, seconds=seconds)
    found = []
    compare_regions(context, slow, settings, again, timeout=lambda: 60.0, out=found, seconds_left=lambda: 0.0)
    assert found == [] and again.left_out["time"] == 6


def test_a_slow_model_skips_the_proposals_and_says_so(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    # 2 tokens/s: not even the proposal prompt can be read in 120 s; the regression check still runs
    model = _slow(ScriptedModel([], scorer=lambda prefix, line: -5.0 if "number * size" in line else -1.0), 2.0, 1.0)
    result = review_change(context, model, ReviewerSettings(strategy="single_call"))
    assert result.status == "partial" and not result.plan.proposals
    assert any("model proposals" in item for item in result.plan.skipped)
    assert model.calls == []  # no chat call was made
    # the regression check still ran; nothing executed backs its guess, so it is a reason to look (medium)
    [guess] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert guess.counts and guess.severity == "medium" and "a reason to look" in guess.message
    for name in ("safety", "intent_alignment"):  # the regression check compared every edit: the plan said why
        dimension = next(d for d in result.dimensions if d.name == name)
        assert dimension.status == "partial"
        assert dimension.explanation.startswith("the time plan left the model's proposals out")
    assert result.plan.regions_compared == 1
    statuses = {d.name: d.status for d in result.dimensions}
    assert statuses["safety"] == "partial" and statuses["intent_alignment"] == "partial"


def test_a_partial_review_rejects_when_configured(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": BUGGY}, {"pages.py": SOUND}))
    model = _slow(ScriptedModel([], scorer=lambda prefix, line: -1.0), 2.0, 1.0)
    assert review_change(context, model, ReviewerSettings(strategy="single_call")).decision.verdict == "APPROVED"
    strict = review_change(context, model, ReviewerSettings(strategy="single_call", budget={"on_partial": "reject"}))
    assert strict.status == "partial" and strict.decision.verdict == "REJECTED"
    assert "on_partial" in strict.decision.reasons[0]


def test_a_fast_model_does_everything_and_skips_nothing(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": BUGGY}, {"pages.py": SOUND}))
    doubt = {"dimension": "code_quality", "line_number": 3, "problem": "p", "severity": "low", "suggestion": "s"}
    model = ScriptedModel([{"json": {"findings": [doubt]}}, "no"], scorer=lambda prefix, line: -1.0)
    result = review_change(context, model, ReviewerSettings(strategy="single_call"))
    assert result.plan.proposals and result.plan.skipped == []
    assert len(model.calls) == 2 and result.status == "complete"


def test_diffs_are_cut_to_the_time_left_and_the_files_left_out_are_named(tmp_path):
    big = "".join(f"def g{i}(value):\n    return value * {i} + {i}\n\n\n" for i in range(120))
    context = branch_context(repo_with_branch(tmp_path / "r", {"a.py": SOUND, "b.py": ""},
                                              {"a.py": BUGGY, "b.py": big}))
    doubt = {"file": "a.py", "dimension": "code_quality", "line_number": 3, "problem": "p", "severity": "low",
             "suggestion": "s"}
    model = _slow(ScriptedModel([{"json": {"findings": [doubt]}}, "no"], scorer=lambda prefix, line: -1.0),
                  40.0, 20.0)
    result = review_change(context, model, ReviewerSettings(strategy="single_call"))
    assert result.plan.proposals and result.plan.diff_tokens <= result.packing.budget_tokens
    assert result.packing.omitted.get("b.py") == "did not fit the time plan"
    assert any("b.py" in item for item in result.plan.skipped)


def test_an_unmeasured_model_reads_the_first_prefix_alone_to_measure_its_speed_when_time_is_short(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    model = ScriptedModel([], scorer=lambda prefix, line: -1.0)
    model.tokens_per_second = None  # as the embedded model: its speed is measured, not declared
    # at the prior 50 tokens/s the region takes more than a quarter of the few seconds there are
    result = review_change(context, model, ReviewerSettings(strategy="checks_only", timeout_seconds=6))
    (head, text), *scored = model.scored
    assert text == "" and len(head) <= 240  # a short piece, reused from the KV cache by what follows
    [(prefix, _), (same, _)] = scored  # then both versions after the whole prefix
    assert prefix == same and prefix.startswith(head)
    assert result.plan.regions_compared == 1


def test_a_region_that_fits_the_time_many_times_over_measures_the_speed_itself(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    model = ScriptedModel([], scorer=lambda prefix, line: -1.0)
    model.tokens_per_second = None
    result = review_change(context, model, ReviewerSettings(strategy="checks_only"))  # 120 s
    [(prefix, old), (same, new)] = model.scored  # no reading of its own before the region
    assert prefix == same and old and new
    assert result.plan.regions_compared == 1


def test_an_unmeasured_model_is_measured_before_the_proposals_are_planned(tmp_path):
    # an added file: nothing for the regression check, so the proposals are the first model work
    context = branch_context(repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 1\n",
                                                                                 "pages.py": SOUND}))
    doubt = {"file": "pages.py", "dimension": "code_quality", "line_number": 3, "problem": "p", "severity": "low",
             "suggestion": "s"}
    model = ScriptedModel([{"json": {"findings": [doubt]}}, "no"], scorer=lambda prefix, line: -1.0)
    model.tokens_per_second = None
    result = review_change(context, model, ReviewerSettings(strategy="single_call"))
    [(head, text)] = model.scored  # the head of the system prompt, read once to measure the speed
    assert text == "" and 0 < len(head) <= 240
    assert result.plan.proposals and len(model.calls) == 2


class _OutOfTime(ScriptedModel):
    def score_text(self, prefix, text, **kwargs):
        from acode.errors import ModelTimeoutError

        raise ModelTimeoutError("ACODE-REVIEW-030", "the review took longer than 120 s")


def test_a_checks_only_review_cut_short_does_not_name_proposals_it_never_planned(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    result = review_change(context, _OutOfTime([]), ReviewerSettings(strategy="checks_only"))
    assert result.status == "timeout" and not result.plan.proposals
    assert not any("proposals" in item for item in result.plan.skipped), result.plan.skipped
