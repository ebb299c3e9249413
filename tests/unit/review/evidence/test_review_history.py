"""The history evidence: a change that reverses an earlier commit of the base, read from real git
repositories (git log of the base), and what it weighs in the decision."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.review_fakes import git, write

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.evidence.history import history_findings, undone_commits
from acode.review.service import review_change

BUGGY = """\
def page_count(items, per_page):
    if per_page <= 0:
        raise ValueError("per_page must be positive")
    return len(items) // per_page
"""
FIXED = BUGGY.replace("return len(items) // per_page", "return (len(items) + per_page - 1) // per_page")
GUARDED = """\
def parse(text, limit=100):
    parts = text.split(",")
    if len(parts) > limit:
        raise ValueError("too many parts")
    return [p.strip() for p in parts]
"""
UNGUARDED = GUARDED.replace('    if len(parts) > limit:\n        raise ValueError("too many parts")\n', "")


def history_repo(path: Path, commits: list[tuple[str, dict[str, str]]], change: dict[str, str],
                 message: str = "Update pages.py") -> Path:
    """`main` with ``commits`` in order (message, files), branch `feature` with ``change`` on top."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for key, value in (("user.email", "dev@example.com"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)
    for text, files in commits:
        write(path, files)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", text)
    git(path, "switch", "-q", "-c", "feature")
    write(path, change)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return path


def after_fix(tmp_path: Path, change: dict[str, str], message: str = "Update pages.py") -> Path:
    """The buggy pages.py, then its fix as a commit of its own, then ``change`` on the branch."""
    return history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Fix page_count dropping the last partial page", {"pages.py": FIXED})],
                        change, message)


def test_putting_back_a_one_line_fix_is_high(tmp_path):
    repo = after_fix(tmp_path, {"pages.py": BUGGY})
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.rule == "history/undoes-fix" and finding.severity == "high"
    assert finding.file == "pages.py" and finding.line == 4
    assert finding.quote == "return len(items) // per_page"
    assert "Fix page_count dropping the last partial page" in finding.message
    assert finding.metrics == {"undone": 2, "of": 2}


def test_taking_out_lines_a_fix_added_is_high(tmp_path):
    repo = history_repo(tmp_path / "r", [("Add parse", {"parse.py": UNGUARDED}),
                                         ("Limit the number of parts (denial of service fix)",
                                          {"parse.py": GUARDED})],
                        {"parse.py": UNGUARDED})
    [undone] = undone_commits(branch_context(repo, "main"))
    assert undone.is_fix and not undone.named and (undone.undone, undone.of) == (2, 2)
    assert undone.quote == "if len(parts) > limit:"


def test_the_fix_itself_is_not_an_undo(tmp_path):
    # the fix on top of the history that wrote the buggy code: it changes the line, it does not put one back
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY})], {"pages.py": FIXED},
                        message="Fix page_count dropping the last partial page")
    assert history_findings(branch_context(repo, "main")) == []


def test_a_revert_that_names_the_commit_is_medium(tmp_path):
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Fix page_count rounding", {"pages.py": FIXED})],
                        {"pages.py": BUGGY}, message='Revert "Fix page_count rounding"\n\nit broke the API')
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.severity == "medium" and "names that commit" in finding.message


def test_silently_undoing_all_of_a_commit_that_does_not_say_fix_is_high(tmp_path):
    # many projects describe a fix by what it does ("Round page counts up"); a file put back as it was
    # before such a commit, under a message that does not say so, is the stale branch that brings a bug back
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Round page counts up", {"pages.py": FIXED})],
                        {"pages.py": BUGGY})
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.rule == "history/undoes-commit" and finding.severity == "high"
    assert "does not say so" in finding.message and "which commit is reverted" in finding.suggestion


def test_a_message_that_says_it_undoes_something_is_not_silent(tmp_path):
    # the user says what the change is ("undo the change"): a commit that was not a fix may go unnamed
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Round page counts up", {"pages.py": FIXED})],
                        {"pages.py": BUGGY}, message="Undo the rounding: callers want floor")
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.rule == "history/undoes-commit" and finding.severity == "low"
    # a fix put back still needs the fix named: "revert" alone does not say which bug comes back
    fixed = after_fix(tmp_path / "f", {"pages.py": BUGGY}, message="Revert the last change")
    assert [f.severity for f in history_findings(branch_context(fixed, "main"))] == ["high"]


def test_undoing_most_but_not_all_of_a_commit_that_does_not_say_fix_is_only_context(tmp_path):
    before = "".join(f"value_{i} = compute({i})\n" for i in range(4))
    tuned = "".join(f"value_{i} = compute_twice({i})\n" for i in range(4))
    mostly = tuned.replace("compute_twice", "compute", 3)  # three of the four lines back, one kept
    repo = history_repo(tmp_path / "r", [("Add values", {"v.py": before}), ("Compute the values twice",
                                                                             {"v.py": tuned})],
                        {"v.py": mostly})
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.rule == "history/undoes-commit" and finding.severity == "low"
    assert finding.metrics == {"undone": 6, "of": 8}


def test_putting_back_a_paragraph_of_the_docs_is_only_context(tmp_path):
    repo = history_repo(tmp_path / "r", [("Add the guide", {"guide.md": "Pages hold ten items each.\n"}),
                                         ("Say how pages round", {"guide.md": "Pages hold ten items; the last "
                                                                              "one may hold fewer.\n"})],
                        {"guide.md": "Pages hold ten items each.\n"}, message="Update guide.md")
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.severity == "low"


def test_a_revert_that_names_a_commit_that_was_not_a_fix_is_info(tmp_path):
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Round page counts up", {"pages.py": FIXED})],
                        {"pages.py": BUGGY}, message='Revert "Round page counts up"\n\ncallers want floor')
    [finding] = history_findings(branch_context(repo, "main"))
    assert finding.severity == "info"


def test_a_small_part_of_a_large_fix_is_not_an_undo(tmp_path):
    # the fix rewrote five lines; the change puts back one of them (60% of the fix is needed)
    before = "".join(f"value_{i} = compute({i})\n" for i in range(6))
    fixed = "".join(f"value_{i} = compute_safely({i})\n" if i < 5 else f"value_{i} = compute({i})\n"
                    for i in range(6))
    partly = fixed.replace("value_0 = compute_safely(0)", "value_0 = compute(0)")
    repo = history_repo(tmp_path / "r", [("Add values", {"v.py": before}), ("Fix the values", {"v.py": fixed})],
                        {"v.py": partly})
    assert undone_commits(branch_context(repo, "main")) == []


def test_reverting_a_files_creation_is_not_compared(tmp_path):
    repo = history_repo(tmp_path / "r", [("Fix: add the pages module", {"pages.py": FIXED, "keep.py": "x = 1\n"})],
                        {"pages.py": "def page_count(items, per_page):\n    return 0\n"})
    assert undone_commits(branch_context(repo, "main")) == []


def test_the_review_rejects_a_silently_reverted_fix_that_the_model_finds_as_likely(tmp_path):
    repo = after_fix(tmp_path, {"pages.py": BUGGY})
    model = ScriptedModel([], scorer=lambda prefix, line: -1.0)  # both versions equally likely
    result = review_change(branch_context(repo, "main"), model, ReviewerSettings(strategy="checks_only"))
    assert result.decision.verdict == "REJECTED"
    [finding] = [f for f in result.all_findings() if f.rule == "history/undoes-fix"]
    assert finding.dimension == "intent_alignment" and finding.counts
    assert not [f for f in result.all_findings() if f.rule == "review/regression" and f.counts]


def test_rewriting_lines_a_fix_added_without_putting_back_the_old_ones_is_not_an_undo(tmp_path):
    # a later fix reworks the earlier fix's lines: it takes them out but does not restore what they replaced
    rewritten = FIXED.replace("return (len(items) + per_page - 1) // per_page",
                              "return -(-len(items) // per_page)")
    repo = after_fix(tmp_path, {"pages.py": rewritten}, "Fix page_count for huge lists")
    assert undone_commits(branch_context(repo, "main")) == []


def test_lines_a_fix_added_that_the_change_moves_to_another_file_are_not_undone(tmp_path):
    guard = '    if len(parts) > limit:\n        raise ValueError("too many parts")\n'
    moved = UNGUARDED.replace("    return [p.strip() for p in parts]", "    check(parts, limit)\n"
                              "    return [p.strip() for p in parts]")
    checks = "def check(parts, limit):\n" + guard
    repo = history_repo(tmp_path / "r", [("Add parse", {"parse.py": UNGUARDED}),
                                         ("Fix: limit the number of parts", {"parse.py": GUARDED})],
                        {"parse.py": moved, "checks.py": checks}, message="Move the limit into checks.py")
    assert undone_commits(branch_context(repo, "main")) == []


def test_a_rewrite_that_drops_a_few_lines_of_an_old_fix_is_not_an_undo(tmp_path):
    rewrite = BUGGY + "".join(f"\n\ndef helper_{i}(value):\n    return value * {i} + compute_offset({i})\n"
                              for i in range(5))
    repo = after_fix(tmp_path, {"pages.py": rewrite}, "Pages: helpers for the new layout")
    assert undone_commits(branch_context(repo, "main")) == []


def test_a_comment_added_by_a_fix_and_taken_out_again_is_not_an_undo(tmp_path):
    silenced = BUGGY.replace("def page_count(items, per_page):", "def page_count(items, per_page):  # noqa: C901")
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY}),
                                         ("Fix lint errors", {"pages.py": silenced})], {"pages.py": BUGGY})
    assert undone_commits(branch_context(repo, "main")) == []


def test_a_test_file_edited_back_is_not_a_fix_put_back(tmp_path):
    test_v1 = "def test_pages():\n    assert page_count([1, 2, 3], 2) == 1\n"
    test_v2 = "def test_pages():\n    assert page_count([1, 2, 3], 2) == 2\n"
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY, "tests/test_pages.py": test_v1}),
                                         ("Fix page_count", {"pages.py": FIXED, "tests/test_pages.py": test_v2})],
                        {"tests/test_pages.py": test_v1})
    assert undone_commits(branch_context(repo, "main")) == []


def test_an_undo_the_projects_tests_confirm_is_a_correction_not_a_fix_put_back(tmp_path):
    # the earlier "fix" broke what the project's test checks; taking it out makes the test pass again
    test = "from pages import page_count\n\n\ndef test_floor():\n    assert page_count([1, 2, 3], 2) == 1\n"
    repo = history_repo(tmp_path / "r", [("Add pages", {"pages.py": BUGGY, "tests/test_pages.py": test}),
                                         ("Fix page_count dropping the last partial page", {"pages.py": FIXED})],
                        {"pages.py": BUGGY})
    settings = ReviewerSettings(strategy="checks_only", test_sandbox=False)
    model = ScriptedModel([], scorer=lambda prefix, line: -1.0)
    result = review_change(branch_context(repo, "main"), model, settings, run_tests=True)
    assert result.tests and result.tests.get("fixed"), result.tests
    [undo] = [f for f in result.all_findings() if f.rule == "history/undoes-fix"]
    assert undo.severity == "medium" and "tests confirm" in undo.message
    assert result.decision.verdict == "APPROVED", result.decision.reasons


def test_a_revert_that_names_the_commit_by_its_short_hash_is_medium(tmp_path):
    repo = after_fix(tmp_path, {"pages.py": BUGGY})
    fix_sha = git(repo, "rev-parse", "--short=9", "main").strip()
    git(repo, "commit", "-q", "--amend", "-m", f"Take out {fix_sha}: callers rely on the old count")
    [undone] = undone_commits(branch_context(repo, "main"))
    assert undone.named and undone.is_fix


REAL = Path(__file__).resolve().parents[3] / "data" / "real_commits" / "b99acaa"


def _real_tree(side: str) -> dict[str, str]:
    root = REAL / side
    return {p.relative_to(root).as_posix().removesuffix(".txt"): p.read_text(encoding="utf-8")
            for p in root.rglob("*.txt")}


def test_a_real_two_file_commit_taken_out_again_is_found_in_both_files_and_is_high_though_it_never_says_fix(
        tmp_path):
    """acode's commit b99acaa, as its history has it: the undo is found in both files. Its message says what
    it does ("... reset their state ..."), not that it fixed something; both files are put back wholly under
    a message that does not say so, which is how a fix described in other words comes back: high either way,
    named as a commit or as a fix by what its message says."""
    before, after = _real_tree("before"), _real_tree("after")
    message = (REAL / "message.txt").read_text(encoding="utf-8").strip()
    repo = history_repo(tmp_path / "r", [("Add compression and next-speaker", before), (message, after)],
                        before, message="Update compression.py, next_speaker.py")
    findings = history_findings(branch_context(repo, "main"))
    assert sorted(f.file for f in findings) == sorted(before)
    assert {(f.rule, f.severity) for f in findings} == {("history/undoes-commit", "high")}
    assert all(message[:40] in f.message for f in findings)

    fixing = history_repo(tmp_path / "f", [("Add compression and next-speaker", before),
                                           ("Fix: " + message, after)],
                          before, message="Update compression.py, next_speaker.py")
    assert {(f.rule, f.severity) for f in history_findings(branch_context(fixing, "main"))} == {
        ("history/undoes-fix", "high")}
