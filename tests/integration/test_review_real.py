"""A real review on the embedded 0.5B model: a planted-bug branch in a temporary repository is reviewed
end to end (evidence, proposals under a JSON grammar, yes/no checks with logprobs, decision) and stored."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from acode.config.review import ReviewerSettings
from acode.review.change.git_context import branch_context
from acode.review.service import review_change
from acode.store.reviews import ReviewStore

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_sample_repo.py"


def make_sample(target: Path) -> Path:
    spec = importlib.util.spec_from_file_location("make_sample_repo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_sample_repo(target)


@pytest.mark.real_model
def test_real_review_of_a_planted_bug_branch_is_stored(real_model, tmp_path):
    repo = make_sample(tmp_path / "sample")
    context = branch_context(repo, "main")
    settings = ReviewerSettings(strategy="per_dimension", max_findings_per_dimension=1, max_tokens_per_answer=200,
                                timeout_seconds=1800)
    for name in ("intent_alignment", "completeness", "consistency"):  # keep the CPU cost small
        getattr(settings.dimensions, name).enabled = False

    result = review_change(context, real_model, settings)

    assert result.status == "complete"
    assert [d.name for d in result.dimensions] == ["code_quality", "safety"]
    assert all(d.status == "assessed" and d.level is not None for d in result.dimensions)
    # the planted SQL injection is caught by the deterministic evidence, so the change is rejected
    assert any(f.rule == "ruff/S608" and f.line == 8 for f in result.evidence)
    assert result.decision.verdict == "REJECTED"
    model_findings = [f for f in result.all_findings() if f.source == "model"]
    assert model_findings, "require_candidates makes the model name at least one line per dimension"
    for finding in model_findings:
        if finding.status in ("confirmed", "dismissed"):
            assert 0.0 <= finding.confidence <= 1.0  # P(yes) from the check answer's logprobs
    assert result.tokens.calls >= 2 and result.tokens.evaluated > 0
    assert result.tokens.reused > 0  # the second dimension reused the shared prefix from the KV cache

    store = ReviewStore(tmp_path / "acode.db")
    review_id = store.save(result, {"reviewer": settings.model_dump(mode="json"), "model": {"name": real_model.name}})
    stored = store.get(review_id)
    assert stored.result.decision.verdict == "REJECTED" and stored.result.context_hash == context.content_hash()
    assert [d.level for d in stored.result.dimensions] == [d.level for d in result.dimensions]
