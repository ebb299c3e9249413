"""Custom commands: discovery, names from paths, precedence, and expansion order and escaping."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from acode.commands.expand import expand_command, split_template
from acode.commands.loader import load_commands
from acode.errors import UsageError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / ".acode").mkdir(parents=True)
    return root


def test_names_come_from_paths_and_project_overrides_user(project):
    user = Path(os.environ["ACODE_CONFIG_HOME"]) / "commands"
    write(user / "agent" / "start.toml", 'description = "user"\nprompt = "user start {{args}}"')
    write(user / "only_user.toml", 'prompt = "u"')
    write(project / ".acode/commands/agent/start.toml", 'description = "project"\nprompt = "project start"')
    write(project / ".acode/commands/git/deep/log.toml", 'prompt = "log"')
    problems: list[str] = []
    write(project / ".acode/commands/broken.toml", 'description = "no prompt"')
    write(project / ".acode/commands/bad.toml", "prompt = [unclosed")
    commands = load_commands(project, problems=problems)
    assert sorted(commands) == ["agent:start", "git:deep:log", "only_user"]
    assert commands["agent:start"].description == "project" and commands["agent:start"].scope == "project"
    assert commands["only_user"].scope == "user"
    assert commands["only_user"].description.startswith("Custom command from")
    assert len(problems) == 2 and any("broken.toml" in p and "prompt" in p for p in problems)


def test_args_placeholder_and_appending(tmp_path):
    assert expand_command("Explain {{args}} simply", "  recursion ", tmp_path) == "Explain recursion simply"
    assert (
        expand_command("Review the code.", "focus on errors", tmp_path)
        == "Review the code.\n\nfocus on errors"
    )
    assert expand_command("Review the code.", "", tmp_path) == "Review the code."


def test_file_injection_is_confined_to_the_workspace(tmp_path):
    write(tmp_path / "src/a.py", "def a():\n    return 1\n")
    out = expand_command("Look at:\n@{src/a.py}\nNow {{args}}", "explain", tmp_path)
    assert out == "Look at:\ndef a():\n    return 1\n\nNow explain"
    write(tmp_path.parent / "secret.txt", "s3cret")
    with pytest.raises(UsageError, match="outside the workspace"):
        expand_command("@{../secret.txt}", "", tmp_path)
    with pytest.raises(UsageError, match="no such file"):
        expand_command("@{missing.py}", "", tmp_path)


def test_shell_injection_asks_and_escapes_args(tmp_path):
    asked: list[str] = []

    def confirm(cmd: str) -> bool:
        asked.append(cmd)
        return True

    hostile = "x'; touch pwned; echo '"
    out = expand_command("Args were: !{printf '%s' {{args}}}", hostile, tmp_path, confirm=confirm)
    assert out == f"Args were: {hostile}"
    assert not (tmp_path / "pwned").exists()
    # the arguments travel in $ACODE_ARGS (issue 14 item 9); the question shows the command and the value
    assert asked == [
        "printf '%s' \"${ACODE_ARGS}\"   (with ACODE_ARGS='x'\"'\"'; touch pwned; echo '\"'\"'')"
    ]


@pytest.mark.parametrize(
    "template",
    [
        'Found: !{printf "%s" "{{args}}"}',  # inside double quotes: shlex.quote did not protect this
        "Found: !{printf '%s' {{args}}}",
        "Found: !{printf '%s' '{{args}}'}",
        "Found: !{printf '%s' \"$(printf '%s' \"{{args}}\")\"}",
        "Found: !{printf '%s' \"`printf '%s' {{args}}`\"}",
        "Found: !{printf '%s' $'{{args}}'}",
    ],
)
def test_args_never_become_shell_code_in_any_quoting_context(tmp_path, template):
    """Issue 14 item 9: `{{args}}` inside double quotes in `!{...}` ran `$(touch X)`."""
    for hostile in [
        "$(touch pwned1)",
        "`touch pwned2`",
        '"; touch pwned3; echo "',
        "'; touch pwned4; '",
        "x\\",
    ]:
        out = expand_command(template, hostile, tmp_path, confirm=lambda c: True)
        assert not list(tmp_path.glob("pwned*")), (template, hostile)
        if "eval" not in template:
            assert out == f"Found: {hostile}", (template, hostile, out)


def test_args_handed_to_eval_or_sh_c_are_refused(tmp_path):
    for template in [
        '!{eval "printf %s {{args}}"}',
        "!{bash -c 'echo {{args}}'}",
        '!{sh -c "echo {{args}}"}',
    ]:
        with pytest.raises(UsageError, match="eval or `sh -c`"):
            expand_command(template, "$(touch pwned)", tmp_path, confirm=lambda c: True)
    assert not (tmp_path / "pwned").exists()


def test_args_in_arithmetic_must_be_plain(tmp_path):
    assert (
        expand_command("!{echo $(( {{args}} + 1 ))}", "41", tmp_path, confirm=lambda c: True).strip() == "42"
    )
    with pytest.raises(UsageError, match="arithmetic"):
        expand_command("!{echo $(( {{args}} + 1 ))}", "a[$(touch pwned)]", tmp_path, confirm=lambda c: True)
    assert not (tmp_path / "pwned").exists()


def test_allow_shell_prefix_does_not_cover_a_second_command(tmp_path):
    with pytest.raises(UsageError, match="not allowed"):
        expand_command("!{echo hi; touch pwned}", "", tmp_path, allow_shell=["echo"])
    with pytest.raises(UsageError, match="not allowed"):
        expand_command("!{echo hi > pwned}", "", tmp_path, allow_shell=["echo"])
    assert not (tmp_path / "pwned").exists()


def test_shell_injection_is_denied_without_confirmation_unless_allowed(tmp_path):
    with pytest.raises(UsageError, match="not allowed") as info:
        expand_command("!{echo hi}", "", tmp_path)
    assert info.value.exit_code == 51
    with pytest.raises(UsageError):
        expand_command("!{echo hi}", "", tmp_path, confirm=lambda cmd: False)
    assert expand_command("!{echo hi}", "", tmp_path, allow_shell=["echo"]).strip() == "hi"


def test_failing_shell_injects_stderr_and_exit_code(tmp_path):
    out = expand_command("Result: !{ls no-such-dir}", "", tmp_path, confirm=lambda c: True)
    assert "no-such-dir" in out and "[Shell command exited with code 2]" in out


def test_injected_text_is_never_processed_again(tmp_path):
    write(tmp_path / "evil.md", "!{touch owned} and {{args}}")
    out = expand_command("@{evil.md} {{args}}", "A", tmp_path, confirm=lambda c: True)
    assert out == "!{touch owned} and {{args}} A"
    assert not (tmp_path / "owned").exists()
    out = expand_command("!{echo '!{touch owned2}'}", "", tmp_path, confirm=lambda c: True)
    assert out.strip() == "!{touch owned2}" and not (tmp_path / "owned2").exists()


def test_order_files_before_shell_and_nested_braces(tmp_path):
    write(tmp_path / "f.txt", "before")
    # the shell piece comes first in the text but runs after the file was read
    out = expand_command(
        "!{echo after > f.txt; awk 'BEGIN{print 1+1}'} @{f.txt}", "", tmp_path, confirm=lambda c: True
    )
    assert out == "2\n before"
    assert (tmp_path / "f.txt").read_text().strip() == "after"
    assert [p.kind for p in split_template("x !{a {b}} y @{p} z")] == [
        "text",
        "shell",
        "text",
        "file",
        "text",
    ]
