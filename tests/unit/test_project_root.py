"""Which folder is the project: the nearest `.acode` no higher than the git top level, never one in a
folder anyone may write to."""

from __future__ import annotations

import os

from tests.helpers.repos import make_git_repo

from acode.paths import find_project_root


def test_a_dot_acode_above_the_repository_does_not_capture_it(tmp_path):
    (tmp_path / ".acode").mkdir()  # a stray one, e.g. left by a run in the parent folder
    repo = make_git_repo(tmp_path / "repo")
    (repo / "src").mkdir()
    assert find_project_root(repo / "src") == repo


def test_the_nearest_dot_acode_inside_the_repository_wins(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    (repo / "pkg" / ".acode").mkdir(parents=True)
    assert find_project_root(repo / "pkg") == repo / "pkg"
    assert find_project_root(repo) == repo


def test_outside_git_a_dot_acode_in_a_folder_anyone_may_write_is_not_taken(tmp_path):
    shared = tmp_path / "shared"
    (shared / ".acode").mkdir(parents=True)
    os.chmod(shared, 0o1777)  # like /tmp: sticky and world-writable
    work = shared / "work"
    work.mkdir()
    assert find_project_root(work) == work
    os.chmod(shared, 0o755)
    assert find_project_root(work) == shared
