"""The regression check (old vs new version of each changed region) and how it decides a review."""

from __future__ import annotations

import pytest
from tests.helpers.review_fakes import BUGGY, SOUND, repo_with_branch, yes_no

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.change.regions import changed_regions
from acode.review.service import review_change


def likes_sound(prefix: str, line: str) -> float:
    """A scorer that finds the off-by-one line improbable: what a code model does with a good docstring."""
    return -6.0 if "number * size" in line else -1.0


@pytest.fixture
def to_buggy(tmp_path):
    return branch_context(repo_with_branch(tmp_path / "b", {"pages.py": SOUND}, {"pages.py": BUGGY}))


@pytest.fixture
def to_sound(tmp_path):
    return branch_context(repo_with_branch(tmp_path / "s", {"pages.py": BUGGY}, {"pages.py": SOUND}))


def checks_only(**regression) -> ReviewerSettings:
    return ReviewerSettings(strategy="checks_only", regression=regression)


def regression_counts(result) -> bool:
    """The likelihood (or question) contrast flagged the change: a counting regression finding."""
    return any(f.rule == "review/regression" and f.counts for f in result.all_findings())


def test_a_region_is_the_changed_lines_after_the_same_documentation_up_to_the_end_of_the_function():
    [region] = changed_regions("pages.py", SOUND, BUGGY)
    assert region.prefix.endswith('"""Page ``number`` (starting at 1) of ``items``."""\n')
    assert region.old_text.startswith("    start = (number - 1) * size\n")
    assert region.new_text.startswith("    start = number * size\n")
    assert region.old_text.endswith("return items[start : start + size]\n") and region.first_line == 3
    assert region.added == (3,)


def test_whitespace_only_changes_and_distant_changes_make_separate_or_no_regions():
    old = "".join(f"x{i} = {i}\n" for i in range(20))
    new = old.replace("x2 = 2", "x2 = 20").replace("x15 = 15", "x15 = 150").replace("x9 = 9", "x9 = 9  ")
    regions = changed_regions("a.txt", old, new)
    assert [r.first_line for r in regions] == [3, 16]


def test_the_new_version_scoring_lower_than_the_old_is_a_finding_on_the_changed_line(to_buggy):
    # nothing ran the function here (checks_only through the engine, no behavioural diff): a likelihood guess
    # is never high on its own, it is a reason to look (backed by a difference: test_review_behaviour_*.py)
    model = ScriptedModel([], scorer=likes_sound)
    result = review_change(to_buggy, model, checks_only(method="likelihood"))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert (finding.file, finding.line, finding.status, finding.quote) == (
        "pages.py", 3, "confirmed", "start = number * size")
    assert finding.metrics["delta_sum"] == pytest.approx(-5.0)
    assert finding.severity == "medium" and "a reason to look" in finding.message
    assert result.dimensions[0].level == "needs_work" and result.decision.verdict == "APPROVED"
    assert len(model.scored) == 2 and model.scored[0][0] == model.scored[1][0]  # same prefix for both versions
    assert result.tokens.calls == 2


def test_the_same_scores_in_the_other_direction_approve(to_sound):
    result = review_change(to_sound, ScriptedModel([], scorer=likes_sound), checks_only(method="likelihood"))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert finding.status == "dismissed" and finding.metrics["delta_sum"] == pytest.approx(5.0)
    assert result.decision.verdict == "APPROVED"


def test_the_margin_decides_how_large_a_drop_rejects(to_buggy):
    model = ScriptedModel([], scorer=likes_sound)
    total = {"method": "likelihood", "statistic": "sum"}
    assert regression_counts(review_change(to_buggy, model, checks_only(**total, margin=4.9)))
    assert not regression_counts(review_change(to_buggy, model, checks_only(**total, margin=5.1)))
    # per token the drop is 5/2 lines: the statistic changes the scale the margin applies to
    mean = checks_only(method="likelihood", statistic="mean", margin=2.4)
    assert regression_counts(review_change(to_buggy, model, mean))


def test_the_question_method_contrasts_the_two_answers(to_buggy, to_sound):
    def answers(p_old: float, p_new: float):
        # the old version is asked about first
        return ScriptedModel([yes_no(p_old), yes_no(p_new)])

    assert regression_counts(review_change(to_buggy, answers(0.8, 0.3), checks_only(method="question")))
    assert review_change(to_sound, answers(0.3, 0.8), checks_only(method="question")).decision.verdict == "APPROVED"
    # a model that doubts everything equally sees no regression
    assert review_change(to_sound, answers(0.2, 0.2), checks_only(method="question")).decision.verdict == "APPROVED"


@pytest.mark.parametrize("unreadable", ["", "perhaps", "{}"])
def test_an_unreadable_or_empty_check_answer_never_approves(to_sound, unreadable):
    model = ScriptedModel([unreadable, unreadable])
    result = review_change(to_sound, model, checks_only(method="question"))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert finding.status == "unchecked" and result.decision.verdict == "REJECTED"


def test_auto_uses_likelihood_when_the_backend_scores_text_and_added_files_have_nothing_to_compare(tmp_path):
    repo = repo_with_branch(tmp_path / "n", {"a.py": "x = 1\n"}, {"a.py": "x = 1\n", "pages.py": BUGGY})
    model = ScriptedModel([], scorer=likes_sound)
    result = review_change(branch_context(repo), model, checks_only())
    assert model.scored == [] and not [f for f in result.all_findings() if f.rule == "review/regression"]
    assert result.decision.verdict == "APPROVED"


def test_off_asks_nothing(to_buggy):
    model = ScriptedModel([], scorer=likes_sound)
    result = review_change(to_buggy, model, checks_only(method="off"))
    assert model.scored == [] and model.calls == [] and result.decision.verdict == "APPROVED"


def test_both_versions_are_read_after_the_stated_intent_as_a_comment(tmp_path):
    repo = repo_with_branch(tmp_path / "i", {"pages.py": SOUND}, {"pages.py": BUGGY},
                            message="Pages start at 0 now\n\nCallers pass zero-based page numbers.")
    model = ScriptedModel([], scorer=likes_sound)
    review_change(branch_context(repo), model, checks_only(method="likelihood"))
    [(old_prefix, _), (new_prefix, _)] = model.scored
    assert old_prefix == new_prefix
    assert old_prefix.startswith("# Change under review:\n#   Pages start at 0 now\n#   Callers pass zero-based page "
                                 "numbers.\n\ndef page(")
    model = ScriptedModel([], scorer=likes_sound)
    review_change(branch_context(repo), model, checks_only(method="likelihood", intent=False))
    assert model.scored[0][0].startswith("def page(")


def test_a_rewrite_larger_than_max_edit_lines_is_not_compared(tmp_path):
    rewritten = SOUND.replace("    start = (number - 1) * size\n",
                              "".join(f"    step{i} = {i}\n" for i in range(5)) + "    start = (number - 1) * size\n")
    repo = repo_with_branch(tmp_path / "r", {"pages.py": BUGGY}, {"pages.py": rewritten})
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0 if "step" in line else -1.0)
    said: list[str] = []
    result = review_change(branch_context(repo), model, checks_only(method="likelihood", max_edit_lines=4),
                           progress=said.append)
    assert model.scored == [] and result.decision.verdict == "APPROVED"
    assert any("not comparing 1 changed region(s)" in line and "max_edit_lines" in line for line in said)
    result = review_change(branch_context(repo), model, checks_only(method="likelihood", max_edit_lines=0))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert finding.metrics["removed_lines"] == 1 and finding.metrics["added_lines"] == 6
    assert regression_counts(result)  # no limit: the longer rewrite reads as less likely


@pytest.mark.parametrize(("path", "mark"), [("a.py", "#"), ("src/b.ts", "//"), ("q.sql", "--"), ("Makefile", "#")])
def test_the_intent_comment_uses_the_file_s_comment_syntax(path, mark):
    from acode.review.judging.regression import _comment_mark

    assert _comment_mark(path) == mark


def test_inserted_lines_and_comment_or_docstring_changes_are_not_compared(tmp_path):
    inserted = SOUND.replace("    return items", "    size = max(1, size)\n    return items")
    reworded = SOUND.replace("(starting at 1) of ``items``", "of ``items``; the first page is 1").replace(
        "    start =", "    # where the page starts\n    start =")
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0)
    for name, after in (("inserted", inserted), ("reworded", reworded)):
        repo = repo_with_branch(tmp_path / name, {"pages.py": SOUND}, {"pages.py": after})
        result = review_change(branch_context(repo), model, checks_only(method="likelihood"))
        assert result.decision.verdict == "APPROVED", name
    assert model.scored == []


def test_prose_lines_are_comments_docstrings_and_string_only_lines():
    from acode.review.change.regions import prose_lines

    text = 'def f(x):\n    """Doc\n    more."""\n    # note\n    y = "s"  # c\n    raise ValueError(\n        "msg"\n    )\n'
    assert prose_lines("a.py", text) & set(range(1, 9)) == {2, 3, 4, 7}
    assert prose_lines("a.ts", "let a = 1;\n// x\n  * y\n") == {2, 3}
    assert prose_lines("broken.py", "def f(:\n    # c\n") == {2}  # unparsable Python: comment lines only


def test_import_only_changes_are_not_compared(tmp_path):
    old = "from os import path\n\n\ndef f(x):\n    return path.join(x, 'a')\n"
    new = old.replace("from os import path", "from os import path, sep")
    context = branch_context(repo_with_branch(tmp_path / "r", {"m.py": old}, {"m.py": new}))
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0)
    result = review_change(context, model, checks_only(method="likelihood"))
    assert model.scored == [] and result.decision.verdict == "APPROVED"


def test_a_fix_shown_by_the_evidence_is_not_judged_by_the_likelihood(tmp_path):
    """hmac.compare_digest reads as less likely than `==` to a code model; the structural evidence shows the
    change adding a constant-time comparison, so the region is measured but does not reject."""
    old = ('import hmac\n\n\ndef valid(sent: str, expected: str) -> bool:\n'
           '    """Compare the signatures in constant time."""\n    return sent == expected\n')
    new = old.replace("return sent == expected", "return hmac.compare_digest(sent, expected)")
    context = branch_context(repo_with_branch(tmp_path / "f", {"sig.py": old}, {"sig.py": new}))
    model = ScriptedModel([], scorer=lambda prefix, line: -9.0 if "compare_digest" in line else -1.0)
    result = review_change(context, model, checks_only(method="likelihood"))
    [finding] = [f for f in result.all_findings() if f.rule == "review/regression"]
    assert finding.status == "dismissed" and finding.metrics["fixed_line"] == 6.0
    assert finding.metrics["delta_mean"] < -0.075  # it would have rejected without the evidence
    assert any(f.rule == "fixed/structural/call" and f.line == 6 for f in result.evidence)
    assert result.decision.verdict == "APPROVED"
    # the other way round (constant-time comparison replaced by ==) is rejected by the evidence itself
    back = branch_context(repo_with_branch(tmp_path / "b", {"sig.py": new}, {"sig.py": old}))
    result = review_change(back, ScriptedModel([], scorer=lambda p, line: -1.0), checks_only(method="likelihood"))
    assert result.decision.verdict == "REJECTED"
    assert any(f.rule == "structural/removed-call" for f in result.evidence)
