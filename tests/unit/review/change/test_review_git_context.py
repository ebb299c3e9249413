from __future__ import annotations

import os

import pytest
from tests.helpers.review_fakes import git, repo_with_branch, write

from acode.errors import AcodeError, UsageError
from acode.review.change import git_context
from acode.review.change.diff_reading import truncate_diff
from acode.review.change.git_context import branch_context, commit_context, uncommitted_context


@pytest.fixture
def branch_repo(tmp_path):
    before = {"app.py": "a = 1\nb = 2\nc = 3\n", "gone.txt": "old\n", "long.txt": "".join(f"{i}\n" for i in range(40))}
    after = {"app.py": "a = 1\nb = 20\nc = 3\nd = 4\n", "gone.txt": None, "new.py": "x = 1\n"}
    repo = repo_with_branch(tmp_path / "repo", before, after, message="Tune app\n\nWhy: b was off")
    git(repo, "mv", "long.txt", "moved.txt")
    (repo / "moved.txt").write_text("".join(f"{i}\n" for i in range(41)))
    (repo / "logo.bin").write_bytes(bytes(range(256)) * 4)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Move and add a binary")
    return repo


def test_branch_context_lists_commits_files_counts_and_change_types(branch_repo):
    ctx = branch_context(branch_repo)
    assert ctx.target == "branch" and ctx.base_ref == "main" and ctx.head_ref == "feature"
    assert [c.subject for c in ctx.commits] == ["Move and add a binary", "Tune app"]
    assert ctx.commits[1].body == "Why: b was off"
    files = {f.path: f for f in ctx.files}
    assert files["app.py"].change_type == "modified"
    assert (files["app.py"].additions, files["app.py"].deletions) == (2, 1)
    assert "+b = 20" in files["app.py"].diff
    assert files["gone.txt"].change_type == "deleted"
    assert files["new.py"].change_type == "added"
    assert files["moved.txt"].change_type == "renamed" and files["moved.txt"].old_path == "long.txt"
    assert files["moved.txt"].additions == 1
    assert files["logo.bin"].change_type == "binary" and files["logo.bin"].diff == ""
    assert ctx.effective_intent().startswith("Move and add a binary")


def test_explicit_intent_wins_over_commit_messages(branch_repo):
    assert branch_context(branch_repo, intent="make b twenty").effective_intent() == "make b twenty"


def test_diff_is_cut_with_a_visible_marker(branch_repo):
    (branch_repo / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(500)))
    git(branch_repo, "add", "-A")
    git(branch_repo, "commit", "-q", "-m", "big")
    big = {f.path: f for f in branch_context(branch_repo, max_diff_chars=1000).files}["big.py"]
    assert big.truncated and len(big.diff) < 1100
    assert "[diff truncated:" in big.diff


def test_truncate_keeps_short_diffs_whole():
    assert truncate_diff("abc\n", 100) == ("abc\n", False)


def test_uncommitted_context_includes_index_worktree_and_untracked(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    write(repo, {"a.py": "x = 3\n", "staged.py": "s = 1\n", "notes/new.md": "hello\n"})
    git(repo, "add", "staged.py")
    ctx = uncommitted_context(repo)
    files = {f.path: f for f in ctx.files}
    assert set(files) == {"a.py", "staged.py", "notes/new.md"}
    assert files["notes/new.md"].change_type == "added" and "+hello" in files["notes/new.md"].diff
    assert "+x = 3" in files["a.py"].diff
    assert ctx.head_rev is None and ctx.target == "uncommitted"


def test_commit_context_reviews_one_commit_including_the_root(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}, message="Set x to 2")
    head = git(repo, "rev-parse", "HEAD")
    ctx = commit_context(repo, head[:8])
    assert ctx.head_sha == head and [c.subject for c in ctx.commits] == ["Set x to 2"]
    assert [f.path for f in ctx.files] == ["a.py"]
    root_commit = git(repo, "rev-list", "--max-parents=0", "HEAD")
    assert commit_context(repo, root_commit).files[0].change_type == "added"


def test_read_new_text_uses_head_commit_not_the_working_tree(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    (repo / "a.py").write_text("x = 99\n")
    ctx = branch_context(repo)
    assert git_context.read_new_text(ctx, "a.py") == "x = 2\n"


def test_default_base_falls_back_to_master(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}, base="master")
    assert branch_context(repo).base_ref == "master"


def test_error_not_a_git_repository(tmp_path):
    with pytest.raises(UsageError) as err:
        branch_context(tmp_path)
    assert err.value.code == "ACODE-GIT-002" and str(tmp_path) in err.value.message


def test_error_unknown_base(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    with pytest.raises(UsageError) as err:
        branch_context(repo, "nope")
    assert err.value.code == "ACODE-GIT-003" and "'nope'" in err.value.message


def test_error_no_base_branch_at_all(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"}, base="trunk")
    with pytest.raises(UsageError) as err:
        branch_context(repo)
    assert err.value.code == "ACODE-GIT-003" and "--base" in err.value.hint


def test_error_no_changes(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    with pytest.raises(UsageError) as err:
        branch_context(repo, "feature")
    assert err.value.code == "ACODE-GIT-005"
    with pytest.raises(UsageError) as err:
        uncommitted_context(repo)
    assert err.value.code == "ACODE-GIT-005"


def test_error_detached_head(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    git(repo, "checkout", "-q", "--detach", "HEAD")
    with pytest.raises(UsageError) as err:
        branch_context(repo)
    assert err.value.code == "ACODE-GIT-004" and "--commit" in err.value.hint


def test_error_unknown_commit(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    with pytest.raises(UsageError) as err:
        commit_context(repo, "deadbeef")
    assert err.value.code == "ACODE-REVIEW-006"


def test_error_git_missing(tmp_path, monkeypatch):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n"})
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    assert os.environ["PATH"].endswith("empty-bin")
    with pytest.raises(AcodeError) as err:
        branch_context(repo)
    assert err.value.code == "ACODE-GIT-001" and "install git" in err.value.hint
