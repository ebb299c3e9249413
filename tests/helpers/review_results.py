"""A review result of every kind of finding, for the output formats."""

from __future__ import annotations

from acode.review.models import Decision, DimensionResult, Finding, ReviewResult


def sample_result(secret: str = "hunter2hunter2") -> ReviewResult:
    model_finding = Finding(
        dimension="code_quality", source="model", rule="review/code_quality", severity="high",
        message="page 1 is skipped", file="pages.py", line=3, end_line=3, quote="start = number * size",
        suggestion="use (number - 1) * size", confidence=0.91, status="confirmed",
    )
    dismissed = model_finding.model_copy(update={"status": "dismissed", "confidence": 0.1, "line": 4})
    leaked = Finding(
        dimension="safety", source="secrets", rule="secret/assigned-secret", severity="critical",
        message="a secret is added", file="cfg.py", line=1, quote=f'password = "{secret}"', confidence=1.0,
    )
    untested = Finding(dimension="completeness", source="tests", rule="tests/not-touched", severity="low",
                       message="no test touched", grounding="none", confidence=1.0)
    return ReviewResult(
        decision=Decision(verdict="REJECTED", strategy="findings",
                          reasons=["code_quality is poor: page 1 is skipped"]),
        dimensions=[
            DimensionResult(name="code_quality", level="poor", explanation="page 1 is skipped (pages.py:3)",
                            findings=[model_finding, dismissed]),
            DimensionResult(name="safety", level="poor", explanation=f'password = "{secret}" added'),
            DimensionResult(name="completeness", level=None, status="timeout",
                            error="not assessed before the timeout"),
        ],
        evidence=[leaked, untested], model="scripted", target="branch", base_ref="main", head_ref="feature",
        head_sha="abc123", context_hash="c" * 64,
    )
