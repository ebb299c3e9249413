"""The regression check on the embedded 0.5B model: text scoring through the KV cache, and a review that
tells an off-by-one from its fix by comparing the old and the new version."""

from __future__ import annotations

import math

import pytest
from tests.helpers.review_fakes import BUGGY, SOUND, repo_with_branch

from acode.config.review import ReviewerSettings
from acode.llm.types import Message
from acode.review.change.git_context import branch_context
from acode.review.service import review_change

pytestmark = pytest.mark.real_model


def test_scores_are_log_probabilities_and_the_cache_changes_nothing(real_model):
    prefix = 'def add(a, b):\n    """Return the sum of a and b."""\n'
    fresh = real_model.score_text(prefix, "    return a + b\n")
    real_model.complete([Message.user("Say hi.")], max_tokens=2)  # something else in the cache
    cached_then = real_model.score_text(prefix, "    return a - b\n")
    again = real_model.score_text(prefix, "    return a + b\n")
    assert len(fresh.logprobs) == len(fresh.tokens) >= 4 and all(lp <= 0 for lp in fresh.logprobs)
    assert "".join(fresh.tokens) == "    return a + b\n"
    assert again.logprobs == fresh.logprobs and again.usage.prompt_tokens_reused >= 0
    assert fresh.total > cached_then.total  # the model finds a + b likelier for "the sum"
    assert math.isfinite(fresh.mean)


def test_the_off_by_one_is_a_reason_to_look_and_its_fix_is_approved(real_model, tmp_path):
    """Nothing runs the code here (no behavioural diff): the likelihood guess finds the off-by-one less likely
    than the sound line and says so, at medium — a guess is never high on its own (the diff backs it:
    test_review_behaviour_real.py)."""
    settings = ReviewerSettings(strategy="checks_only", timeout_seconds=600)
    to_buggy = branch_context(repo_with_branch(tmp_path / "b", {"pages.py": SOUND}, {"pages.py": BUGGY}))
    to_sound = branch_context(repo_with_branch(tmp_path / "s", {"pages.py": BUGGY}, {"pages.py": SOUND}))

    flagged = review_change(to_buggy, real_model, settings)
    approved = review_change(to_sound, real_model, settings)

    [bad] = [f for f in flagged.all_findings() if f.rule == "review/regression"]
    [good] = [f for f in approved.all_findings() if f.rule == "review/regression"]
    assert (bad.file, bad.line, bad.status, bad.severity) == ("pages.py", 3, "confirmed", "medium")
    assert "a reason to look" in bad.message and good.status == "dismissed"
    intent = next(d for d in flagged.dimensions if d.name == "intent_alignment")
    assert intent.level == "needs_work" and approved.decision.verdict == "APPROVED"
    assert bad.metrics["delta_sum"] == pytest.approx(-good.metrics["delta_sum"], abs=1e-3)
    # both versions, one reading each: the region fits the time many times over, so its own reading
    # measures the model's speed (no separate reading of the prefix, issue 31)
    assert flagged.tokens.calls == 2 and flagged.tokens.evaluated > 0


def test_the_projects_tests_reach_the_model_before_both_versions(real_model, tmp_path):
    """regression.tests: the project's test of the changed function is read before both versions (more
    prompt tokens than without it), and the off-by-one is still found less likely with it in view."""
    test = "from pages import page\n\n\ndef test_first_page():\n    assert page(list(range(25)), 1) == list(range(10))\n"
    on = ReviewerSettings(strategy="checks_only", timeout_seconds=600, regression={"tests": True})
    off = ReviewerSettings(strategy="checks_only", timeout_seconds=600)
    results = {}
    for name, settings in (("on", on), ("off", off)):
        repo = repo_with_branch(tmp_path / name, {"pages.py": SOUND, "test_pages.py": test}, {"pages.py": BUGGY})
        results[name] = review_change(branch_context(repo), real_model, settings)
    [finding] = [f for f in results["on"].all_findings() if f.rule == "review/regression"]
    assert (finding.file, finding.line, finding.status) == ("pages.py", 3, "confirmed")
    assert results["on"].tokens.prompt_tokens > results["off"].tokens.prompt_tokens + 20
