"""Issue 30 items 1, 2, 10, 11 through ``acode -p --json`` with the scripted model: code bash evaluates
inside words (subscripts, arithmetic), environment prefixes that turn an allowed command into another,
commands that run other commands from data, and allowed programs that write through their options.
Every command here was allowed (or escaped the deny rule) on main f5c9360 and did what it says; the
files they would touch or delete live in the test's tmp folder."""

from __future__ import annotations

import pytest
from tests.helpers.agent_cli import write_script
from tests.helpers.trust_shell import configure, run_cli, tool_steps


def run_commands(repo, commands: list[str], mode: str) -> list[dict]:
    script = write_script(repo, [
        *({"tool": "run_shell_command", "arguments": {"command": c}} for c in commands),
        "done",
    ])
    return tool_steps(run_cli(repo, script, "-p", "go", "--json", "--approval-mode", mode))


def assert_rm_is_denied_in_yolo(repo, commands: list[str], victim: str) -> None:
    """With `deny_shell: [rm]` in yolo, each command (which removes `{victim}{n}`) is denied and the
    files are still there."""
    configure(repo, {"agent": {"rules": {"deny_shell": ["rm"]}}})
    files = [repo / f"{victim}{index}" for index in range(1, len(commands) + 1)]
    for path in files:
        path.write_text("keep\n")
    steps = run_commands(repo, commands, "yolo")
    assert [s["decision"] for s in steps] == ["denied"] * len(commands), steps
    assert all("deny_shell" in s["error"] or "cannot be checked" in s["error"] for s in steps), steps
    assert all(path.exists() for path in files)


def test_quoted_subscripts_and_arithmetic_on_text_are_not_allowed_by_printf_or_echo(git_repo):
    """Item 1, default mode: bash runs the `$(...)` of a subscript in a name or in a variable's value."""
    configure(git_repo, {"agent": {"rules": {"allow_shell": ["printf", "echo"]}}})
    commands = [
        "printf -v 'a[$(touch p1)]' %s 1",
        "x='a[$(touch p7)]'; echo $((x))",
        "y='a[$(touch p8)]'; echo ${b[y]}",
        "echo $((1 + 2)); printf -v total %s 3",  # plain arithmetic and a plain name stay allowed
    ]
    steps = run_commands(git_repo, commands, "default")
    assert [s["decision"] for s in steps] == ["denied", "denied", "denied", "allowed"], steps
    assert all("non-interactive" in s["error"] for s in steps[:3])
    assert not list(git_repo.glob("p*"))


def test_words_bash_evaluates_cannot_hide_a_denied_command_in_yolo(git_repo):
    """Item 1, yolo with `deny_shell: [rm]`: each of these deleted its file."""
    assert_rm_is_denied_in_yolo(git_repo, [
        "[[ -v 'a[$(rm f1)]' ]]",
        "declare 'a[$(rm f2)]=1'",
        "let 'a[$(rm f3)]'",
        "read 'a[$(rm f4)]' <<< 1",
        "test -v 'a[$(rm f5)]'",
        "x='a[$(rm f6)]'; echo $((x))",
        "x='a[$(rm f7)]'; [[ $x -eq 1 ]]",
        "mapfile -C 'rm f8' -c 1 lines <<< hi",
        "x='$(rm f9)'; echo ${x@P}",
    ], "f")


def test_environment_prefixes_are_part_of_what_runs(git_repo, tmp_path):
    """Item 2: with `git status` / `git log` / `ls` allowed, assignments made git run a command."""
    configure(git_repo, {"agent": {"rules": {"allow_shell": ["git status", "git log", "ls", "LANG=C ls"]}}})
    commands = [
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch X1' git status",
        "GIT_EXTERNAL_DIFF='touch X2 #' git log -p --ext-diff -1",
        "env GIT_PAGER='touch X3' git log -1",
        f"LD_PRELOAD={tmp_path}/nothing.so ls",
        "export GIT_EXTERNAL_DIFF='touch X4 #'; git log -p --ext-diff -1",
        "LANG=C git status",  # the rule does not name the assignment
        "LANG=C ls",  # this one does
        "git status",
    ]
    steps = run_commands(git_repo, commands, "default")
    assert [s["decision"] for s in steps] == ["denied"] * 6 + ["allowed"] * 2, steps
    assert not list(git_repo.glob("X*"))


def test_a_command_variable_is_deny_checked_like_bash_c(git_repo):
    configure(git_repo, {"agent": {"rules": {"deny_shell": ["touch"]}}})
    steps = run_commands(git_repo, ["GIT_EXTERNAL_DIFF='touch X5 #' git log -p --ext-diff -1"], "yolo")
    assert steps[0]["decision"] == "denied" and "deny_shell ('touch'" in steps[0]["error"]
    assert not (git_repo / "X5").exists()


def test_commands_that_run_other_commands_from_data_are_deny_checked(git_repo):
    """Item 10, yolo with `deny_shell: [rm]`: each of these deleted its file."""
    assert_rm_is_denied_in_yolo(git_repo, [
        "echo 'rm g1' | bash",
        "source /dev/stdin <<< 'rm g2'",
        "trap 'rm g3' EXIT",
        "hash -p /bin/rm z; z g4",
        "flock lockfile rm g5",
        "git -c alias.z='!rm g6' z",
        "bash <<< 'rm g7'",
        "printf 'g8\\n' | xargs -I{} sh -c 'rm {}'",
        "compgen -C 'rm g9' x",
        "git config alias.z '!rm g10'; git z",
    ], "g")


@pytest.mark.parametrize("mode", ["default", "auto_edit"])
def test_allowed_programs_that_write_are_judged_like_redirections(git_repo, mode):
    """Item 11: `tee`, `git log`, `find` allowed; their writing options wrote outside the workspace
    and into .git/."""
    configure(git_repo, {"agent": {"rules": {"allow_shell": ["tee", "echo", "git log", "find", "sort"]}}})
    (git_repo / "keep").mkdir()
    (git_repo / "keep" / "a.txt").write_text("a\n")
    git_config = (git_repo / ".git" / "config").read_text()
    outside = git_repo.parent
    commands = [
        "echo hi | tee ../x1",
        "echo '[core] fsmonitor = touch X' | tee -a .git/config",
        "git log --output=../x2",
        "find keep -delete",
        "find . -fprint ../x3",
        "find . -name '*.txt' -delete",
        "sort -o ../x4 README.md",
        "echo hi | tee inside.txt",  # a workspace file: asks in default, runs in auto_edit
    ]
    steps = run_commands(git_repo, commands, mode)
    decisions = [s["decision"] for s in steps]
    assert decisions[:3] == ["denied"] * 3 and decisions[4:7] == ["denied"] * 3, steps
    assert "outside the workspace" in steps[0]["error"] and ".git/" in steps[1]["error"]
    assert "only the user edits" in steps[5]["error"]  # `find .` reaches .git/ and .acode/
    assert decisions[3] == decisions[7] == ("denied" if mode == "default" else "allowed")
    assert not list(outside.glob("x*")) and (git_repo / ".git" / "config").read_text() == git_config
    assert (git_repo / "keep").exists() == (mode == "default")
    assert (git_repo / "inside.txt").exists() == (mode == "auto_edit")


def test_git_config_is_a_write_into_git(git_repo):
    """With `git` allowed, `git config core.fsmonitor CMD` stored a command every later git call runs."""
    configure(git_repo, {"agent": {"rules": {"allow_shell": ["git"]}}})
    git_config = (git_repo / ".git" / "config").read_text()
    commands = ["git config core.fsmonitor 'touch X6'; git status", "git config -l"]
    steps = run_commands(git_repo, commands, "auto_edit")
    assert [s["decision"] for s in steps] == ["denied", "allowed"], steps
    assert ".git/" in steps[0]["error"] and (git_repo / ".git" / "config").read_text() == git_config
    assert not (git_repo / "X6").exists()


def test_options_whose_value_is_a_command_are_deny_checked(git_repo):
    """Programs an allow list often names run commands given in their options (GTFOBins' list)."""
    assert_rm_is_denied_in_yolo(git_repo, [
        "git rebase -x 'rm h1' HEAD",
        "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm h2' README.md",
        "sed '1e rm h3' README.md",
        "sed 's/.*/rm h4/e' README.md",
        "busybox rm h5",
    ], "h")
