"""A real multi-file fix of a real project, reviewed on the embedded 0.5B as `acode review --base main`
reviews a branch: acode's own commit b99acaa ("Compression and next-speaker reset their state when a
new session starts"), two files, must be approved; the commit that takes the fix out again must be
flagged. The two files before and after the commit are in tests/data/real_commits/b99acaa (stored as
.txt so no tool treats them as this project's code).

The 0.5B reads this pair through the regression check (the fix only inserts lines, which are not
compared; the reversal deletes the reset in next_speaker.py, which the model finds less likely than the
code with it). Nothing runs this code here (no behavioural diff, no tests, no history naming a fix), so the
guess is a reason to look (`medium`), not a rejection: a likelihood guess is never high on its own. The default review also asks the model for proposals; on the 0.5B their checks are not a
reliable signal, so this test reviews with `strategy: checks_only` (the regression check and the
deterministic evidence) and a limit large enough for a loaded CI machine. benchmarks/review/real_commits.py
measures the default review on the whole real-commit set, per project and model (benchmarks/results/history/).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import ReviewerSettings
from acode.review.change.git_context import branch_context
from acode.review.service import review_change

pytestmark = pytest.mark.real_model

DATA = Path(__file__).resolve().parents[1] / "data" / "real_commits" / "b99acaa"


def _tree(side: str) -> dict[str, str]:
    root = DATA / side
    return {p.relative_to(root).as_posix().removesuffix(".txt"): p.read_text(encoding="utf-8")
            for p in root.rglob("*.txt")}


def test_a_real_two_file_fix_is_approved_and_taking_it_out_again_is_a_reason_to_look(real_model, tmp_path):
    before, after = _tree("before"), _tree("after")
    assert sorted(before) == ["src/acode/agent/compression.py", "src/acode/agent/next_speaker.py"]
    message = (DATA / "message.txt").read_text(encoding="utf-8").strip()
    fix = branch_context(repo_with_branch(tmp_path / "fix", before, after, message=message), "main")
    revert = branch_context(repo_with_branch(tmp_path / "revert", after, before,
                                             message="Update compression.py, next_speaker.py"), "main")
    settings = ReviewerSettings(strategy="checks_only", timeout_seconds=900)

    approved = review_change(fix, real_model, settings)
    flagged = review_change(revert, real_model, settings)

    assert approved.decision.verdict == "APPROVED" and approved.status == "complete", approved.decision.reasons
    assert flagged.status == "complete"
    [regression] = [f for f in flagged.all_findings() if f.rule == "review/regression" and f.counts]
    assert regression.file == "src/acode/agent/next_speaker.py" and regression.severity == "medium"
    assert next(d for d in flagged.dimensions if d.name == "intent_alignment").level == "needs_work"
    assert regression.metrics["removed_lines"] == 3 and regression.metrics["added_lines"] == 0
    # the fix only inserts lines: nothing to compare, so the model was not asked at all
    assert approved.plan.regions_compared == 0 and approved.tokens.calls == 0
