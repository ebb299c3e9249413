"""list_directory, list_files and glob: ignore files, ordering, filters and errors."""

from __future__ import annotations

import os
import time

from tests.helpers.repos import make_git_repo


def _tree(root):
    files = {
        ".gitignore": "*.pyc\nbuild/\n",
        ".acodeignore": "private.txt\n",
        "b.py": "b\n",
        "A.md": "a\n",
        "x.pyc": "bytecode\n",
        "private.txt": "p\n",
        "build/out.bin": "o\n",
        "src/app.py": "app\n",
        "src/util.py": "util\n",
        "src/data/table.csv": "1,2\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / ".git").mkdir()


def test_list_directory_folders_first_and_ignores(workspace, call):
    _tree(workspace)
    result = call("list_directory", dir_path=".")
    assert result.output.splitlines() == [
        "Directory listing for .:",
        "[DIR] src",
        ".acodeignore",
        ".gitignore",
        "A.md",
        "b.py",
        "(4 ignored by .gitignore/.acodeignore or the ignore argument)",
    ]
    narrowed = call("list_directory", dir_path="src", ignore=["util*"])
    assert narrowed.output.splitlines()[:3] == ["Directory listing for src:", "[DIR] data", "app.py"]
    assert "util.py" not in narrowed.output


def test_list_directory_errors(workspace, call):
    (workspace / "f.txt").write_text("x")
    assert "Directory not found: nope" in call("list_directory", dir_path="nope").error
    assert "is a file" in call("list_directory", dir_path="f.txt").error
    assert "outside the workspace" in call("list_directory", dir_path="/").error
    (workspace / "empty").mkdir()
    assert call("list_directory", dir_path="empty").output == "Directory empty is empty."


def test_list_files_recursive_with_pattern(workspace, call):
    _tree(workspace)
    everything = call("list_files").data
    assert everything["files"] == [
        ".acodeignore",
        ".gitignore",
        "A.md",
        "b.py",
        "src/app.py",
        "src/data/table.csv",
        "src/util.py",
    ]
    assert everything["truncated"] is False and everything["total"] == 7
    assert call("list_files", directory="src", pattern="*.py").data["files"] == ["src/app.py", "src/util.py"]
    assert call("list_files", pattern="data/*.csv", directory="src").data["files"] == ["src/data/table.csv"]


def test_list_files_in_git_repo_uses_git_view(tmp_path, call, ctx):
    repo = make_git_repo(tmp_path / "repo", {".gitignore": "*.log\n", "a.py": "a\n", "debug.log": "x\n"})
    (repo / "new_untracked.py").write_text("n\n")
    (repo / "skip.log").write_text("x\n")
    ctx.workspace = repo
    # debug.log is tracked (added before .gitignore took effect in the same commit), so git shows it
    files = call("list_files").data["files"]
    assert "new_untracked.py" in files and "skip.log" not in files and "a.py" in files


def test_glob_recent_first_then_alphabetical(workspace, call):
    _tree(workspace)
    old = time.time() - 3 * 24 * 3600
    for name in ("b.py", "src/app.py", "src/util.py"):
        os.utime(workspace / name, (old, old))
    now = time.time()
    os.utime(workspace / "src/util.py", (now - 10, now - 10))
    os.utime(workspace / "b.py", (now - 5, now - 5))
    result = call("glob", pattern="**/*.py")
    assert result.output.splitlines()[1:] == ["b.py", "src/util.py", "src/app.py"]
    assert "recently modified first" in result.output.splitlines()[0]


def test_glob_is_relative_to_dir_path_and_respects_ignores(workspace, call):
    _tree(workspace)
    old = time.time() - 3 * 24 * 3600
    for name in ("src/app.py", "src/util.py"):
        os.utime(workspace / name, (old, old))
    assert call("glob", pattern="*.py", dir_path="src").output.splitlines()[1:] == [
        "src/app.py",
        "src/util.py",
    ]
    assert "x.pyc" not in call("glob", pattern="*").output
    assert call("glob", pattern="*.rs").output == "No files matching '*.rs' in .."
    assert "pattern: Field required" in call("glob").error
