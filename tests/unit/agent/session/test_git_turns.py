"""Git like aider, on real repositories: one commit per turn that changed files (only those files),
marked as acode's; /undo only while that commit is HEAD and no tracked file has changes; /diff."""

from __future__ import annotations

import pexpect
from tests.helpers.agent_cli import PROMPT, run_cli, spawn_chat, write_script
from tests.helpers.repos import git, make_git_repo

from acode.agent.session.git_turns import TRAILER, changed_paths, snapshot_tree, undo_last_commit


def test_snapshots_see_tool_and_shell_changes_but_not_acode_dir(git_repo):
    before = snapshot_tree(git_repo)
    head, index = git(git_repo, "rev-parse", "HEAD"), (git_repo / ".git" / "index").read_bytes()
    (git_repo / "new.py").write_text("x = 1\n")
    (git_repo / "README.md").write_text("changed\n")
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "acode.db").write_text("db")
    after = snapshot_tree(git_repo)
    assert changed_paths(git_repo, before, after) == ["README.md", "new.py"]
    assert git(git_repo, "rev-parse", "HEAD") == head and (git_repo / ".git" / "index").read_bytes() == index


def test_one_shot_auto_commit_commits_only_the_turns_files(git_repo):
    (git_repo / "mine.txt").write_text("my own work in progress\n")  # untracked, not the agent's
    script = write_script(git_repo, [
        {"tool": "write_file", "arguments": {"file_path": "util.py", "content": "def f():\n    return 1\n"}},
        {"tool": "run_shell_command", "arguments": {"command": "echo data > out.txt"}},
        "Done.",
    ])
    out = run_cli(
        git_repo, script, "-p", "add util.py and out.txt", "--approval-mode", "yolo", "--auto-commit"
    )
    assert out.returncode == 0, out.stderr
    assert "committed" in out.stderr
    message = git(git_repo, "log", "-1", "--format=%B")
    assert message.startswith("acode: add util.py and out.txt") and f"{TRAILER}: " in message
    assert git(git_repo, "show", "--name-only", "--format=", "HEAD").splitlines() == ["out.txt", "util.py"]
    assert git(git_repo, "status", "--porcelain").splitlines() == ["?? .acode/", "?? mine.txt"]

    without = write_script(
        git_repo, [{"tool": "write_file", "arguments": {"file_path": "two.py", "content": "2\n"}}, "Done."]
    )
    run_cli(git_repo, without, "-p", "add two.py", "--approval-mode", "yolo")
    assert git(git_repo, "log", "-1", "--format=%s") == "acode: add util.py and out.txt"  # off by default


def test_undo_refuses_unless_an_acode_commit_is_head_and_the_tree_is_clean(git_repo):
    script = write_script(
        git_repo, [{"tool": "write_file", "arguments": {"file_path": "a.py", "content": "A = 1\n"}}, "Done."]
    )
    run_cli(git_repo, script, "-p", "add a.py", "--approval-mode", "yolo", "--auto-commit")
    acode_commit = git(git_repo, "rev-parse", "HEAD")

    (git_repo / "README.md").write_text("edited by me\n")
    refused = undo_last_commit(git_repo)
    assert not refused.done and "uncommitted changes (README.md)" in refused.message
    git(git_repo, "commit", "-qam", "my commit")
    refused = undo_last_commit(git_repo)
    assert not refused.done and "is not an acode commit" in refused.message
    assert (git_repo / "a.py").exists()

    git(git_repo, "reset", "-q", "--hard", acode_commit)
    done = undo_last_commit(git_repo)
    assert done.done and done.paths == ["a.py"] and not (git_repo / "a.py").exists()
    assert git(git_repo, "log", "-1", "--format=%s") == "initial commit"
    assert not undo_last_commit(git_repo).done  # the initial commit is not acode's


def test_chat_auto_commit_diff_and_undo_in_a_terminal(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": "def add(a, b):\n    return a - b\n"})
    script = write_script(
        repo,
        [
            {
                "tool": "replace",
                "arguments": {"file_path": "util.py", "old_string": "a - b", "new_string": "a + b"},
            },
            "Fixed the sign.",
        ],
    )
    child = spawn_chat(repo, script, "--auto-commit", "--approval-mode", "auto_edit")
    child.sendline("fix add in util.py")
    child.expect("committed [0-9a-f]{10}: 1 file")
    child.expect("Fixed the sign")
    child.expect(PROMPT)
    assert git(repo, "log", "-1", "--format=%s") == "acode: fix add in util.py"
    child.sendline("/diff")
    child.expect("last turn changed util.py \\(commit [0-9a-f]{10}\\)")
    child.expect("a \\+ b")
    child.expect(PROMPT)
    child.sendline("/undo")
    child.expect('undid [0-9a-f]{10} "acode: fix add in util.py"')
    child.expect(PROMPT)
    assert "a - b" in (repo / "util.py").read_text()
    child.sendline("/undo")
    child.expect("not undone:.*is not an acode commit")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0 and git(repo, "log", "-1", "--format=%s") == "initial commit"


def test_a_snapshot_that_cannot_be_taken_is_reported_once(git_repo):
    """Issue 30 item 13: an empty nested repository makes `git add -A` fail; the warning came on every tool
    call of the turn. It is said once, and the tools go on."""
    (git_repo / ".acode").mkdir()
    git(git_repo, "init", "-q", "nested")  # a repository without a commit inside the project
    (git_repo / "a.txt").write_text("x\n")
    steps = [{"tool": "grep_search", "arguments": {"pattern": f"x{i}?"}} for i in range(3)]
    out = run_cli(git_repo, write_script(git_repo, [*steps, "done"]), "-p", "look")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("no snapshot before this turn") == 1, out.stderr
    assert out.stderr.count("ok ") == 3
