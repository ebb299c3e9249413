"""The pure-Python ignore matcher agrees with git on a tree using every supported rule form, and the
git-based listing falls back to it when git fails."""

from __future__ import annotations

import os

import pytest
from tests.helpers.repos import make_git_repo

from acode.tools.globmatch import match_glob, match_name_or_path
from acode.tools.ignore import IgnoreRules, candidate_files, parse_rule

TREE = {
    ".gitignore": (
        "# comment\n*.log\n!keep.log\nbuild/\n/top_only.txt\n**/cache/**\ndocs/**/*.tmp\n"
        "secret[0-9].txt\n\\#hash.txt\ntrailing.txt   \n"
    ),
    "README.md": "readme\n",
    "app.log": "x\n",
    "keep.log": "x\n",
    "top_only.txt": "x\n",
    "sub/top_only.txt": "kept: not at the top\n",
    "build/out.o": "x\n",
    "sub/build/deep.o": "x\n",
    "sub/build.txt": "build as a file name is fine\n",
    "a/cache/b/c.txt": "x\n",
    "docs/x/y/z.tmp": "x\n",
    "docs/z.tmp": "x\n",
    "docs/keep.md": "x\n",
    "secret1.txt": "x\n",
    "secretA.txt": "x\n",
    "#hash.txt": "x\n",
    "trailing.txt": "x\n",
    "pkg/.gitignore": "*.py\n!main.py\ngen/\n",
    "pkg/main.py": "x\n",
    "pkg/util.py": "x\n",
    "pkg/gen/file.txt": "x\n",
    "pkg/nested/deep.py": "x\n",
    "pkg/data.json": "x\n",
    ".hidden/config": "x\n",
}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


EXPECTED_VISIBLE = sorted(
    [
        ".gitignore",
        "README.md",
        "keep.log",
        "sub/top_only.txt",
        "sub/build.txt",
        "docs/keep.md",
        "secretA.txt",
        "pkg/.gitignore",
        "pkg/main.py",
        "pkg/data.json",
        ".hidden/config",
    ]
)


def test_python_matcher_on_every_rule_form(tree):
    assert candidate_files(tree, mode="python") == EXPECTED_VISIBLE


def test_python_matcher_equals_git(tree):
    repo = make_git_repo(tree.parent / "tree", files={})  # git init + commit of the tree as it is
    via_git = candidate_files(repo, mode="git")
    assert via_git == EXPECTED_VISIBLE
    assert candidate_files(repo, mode="python") == via_git
    assert candidate_files(repo, start="pkg", mode="git") == [
        "pkg/.gitignore",
        "pkg/data.json",
        "pkg/main.py",
    ]
    assert candidate_files(repo, start="pkg", mode="python") == candidate_files(repo, start="pkg", mode="git")


def test_acodeignore_applies_in_both_modes_and_can_override(tree):
    (tree / ".acodeignore").write_text("docs/\n!app.log\n")
    (tree / "pkg" / ".acodeignore").write_text("data.json\n")
    repo = make_git_repo(tree, files={})
    for mode in ("git", "python"):
        files = candidate_files(repo, mode=mode)
        assert not any(f.startswith("docs/") for f in files), mode
        assert "pkg/data.json" not in files, mode
    # .acodeignore is read after .gitignore, so the Python matcher lets it re-include app.log
    assert "app.log" in candidate_files(repo, mode="python")


def test_git_failure_falls_back_to_python(tree, caplog):
    repo = make_git_repo(tree, files={})
    (repo / ".git" / "index").write_bytes(b"this is not an index")
    assert candidate_files(repo, mode="auto") == EXPECTED_VISIBLE
    assert "git ls-files failed" in caplog.text


def test_dot_git_always_skipped_and_symlinks_confined(tmp_path):
    root = tmp_path / "r"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("x")
    (root / "f.txt").write_text("x")
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    os.symlink(outside, root / "out_link.txt")
    os.symlink(root / "f.txt", root / "in_link.txt")
    assert candidate_files(root, mode="python") == ["f.txt", "in_link.txt"]


def test_ancestor_ignored_folder_cannot_be_reincluded(tmp_path):
    (tmp_path / ".gitignore").write_text("logs/\n!logs/important.txt\n")
    rules = IgnoreRules(tmp_path)
    assert rules.is_ignored("logs/important.txt", False)
    assert rules.is_ignored("logs", True) and not rules.is_ignored("logs", False)


def test_parse_rule_skips_blank_and_comments():
    assert parse_rule("", "") is None and parse_rule("# x", "") is None and parse_rule("!", "") is None
    assert parse_rule("!x/", "").negate and parse_rule("!x/", "").dir_only


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "d/a.py", False),
        ("**/*.py", "d/e/a.py", True),
        ("**/*.py", "a.py", True),
        ("src/**", "src/a/b", True),
        ("a/**/b", "a/b", True),
        ("a/**/b", "a/x/y/b", True),
        ("*.{py,md}", "x.md", True),
        ("*.{py,md}", "x.txt", False),
        ("[!a]*", "a", False),
        ("f?o", "f/o", False),
    ],
)
def test_glob_matching(pattern, path, matches):
    assert match_glob(pattern, path) is matches


def test_name_or_path_filter():
    assert match_name_or_path("*.py", "deep/x/a.py")
    assert not match_name_or_path("src/*.py", "lib/a.py")
    assert match_name_or_path("src/*.py", "src/a.py")
