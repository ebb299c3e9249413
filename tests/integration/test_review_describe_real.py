"""`acode review --describe`'s one model call on the real 0.5B: the summary of a real branch is the model's
own text, non-empty and within its bound (tests/unit/review/describing/test_review_describe.py: the facts and the
failures, on a scripted model)."""

from __future__ import annotations

import pytest
from tests.helpers.repos import git, make_git_repo

from acode.config.review import ReviewerSettings
from acode.review.change.git_context import branch_context
from acode.review.describing.describe import describe_change
from acode.review.describing.summary import SUMMARY_CHARS

PAGING = '''def page(items, number, size=10):
    """Page ``number`` (starting at 1) of ``items``."""
    start = (number - 1) * size
    return items[start : start + size]
'''
LAST = '''

def last_page(items, size=10):
    """The last page of ``items`` (empty when there are none)."""
    count = (len(items) + size - 1) // size
    return page(items, max(count, 1), size)
'''


@pytest.mark.real_model
def test_the_real_model_writes_a_short_summary_of_a_branch(tmp_path, real_model, real_model_settings):
    repo = make_git_repo(tmp_path / "repo", {"paging.py": PAGING})
    git(repo, "switch", "-qc", "feature")
    (repo / "paging.py").write_text(PAGING + LAST)
    git(repo, "commit", "-qam", "Add last_page, the last page of a list")
    context = branch_context(repo, "main", intent="", max_diff_chars=10_000, context_lines=3)
    built = []
    description = describe_change(context, ReviewerSettings(), real_model_settings,
                                  summary_model=lambda: built.append(1) or real_model, run_tests=False,
                                  db_path=None)
    summary = description.summary
    assert summary is not None, description.summary_note
    assert built == [1] and summary.model == real_model.name and summary.generated_tokens > 0
    assert 0 < len(summary.text) <= SUMMARY_CHARS, summary.text
    assert "page" in summary.text.lower(), summary.text  # about this change, not a stock sentence
    assert description.facts.files[0].added == ["last_page"]
