"""Property: no command line that contains a denied command is ever allowed, however the denied
command is hidden (every list operator, pipelines, background, newlines, $(...), backticks, <(...),
>(...), subshells, { ; } groups, loops, if, case, functions, assignments, arithmetic, wrappers such as
timeout / env / bash -c, quoting tricks), and a line the policy does allow, run by real bash with
``touch`` and ``rm`` replaced by spies, never runs either of them."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.approval.shell_rules import judge_shell
from acode.agent.loop.middleware import AgentState
from acode.config.agent import ToolRules
from acode.llm.types import ToolCall
from acode.tools.base import ToolContext
from acode.tools.shell import RunShellCommand

ALLOW = ["ls", "git status", "echo", "cat", "true"]
DENY = ["touch", "rm"]
ALLOWED_ATOMS = ["ls", "ls -a", "echo hi", "git status --short", "cat README.md", "true"]
# a denied command, spelled every way bash still reads as that command
DENIED_ATOMS = [
    "touch m1", "rm -f m2", "\\rm -f m3", "'rm' -f m4", '"touch" m5', 'r""m -f m6', "t\\ouch m7",
    "command touch m8", "env A=1 touch m9", "timeout 5 touch m10", "nohup touch m11", "time touch m12",
    "xargs touch", "A=1 touch m13", "/usr/bin/touch m14", "bash -c 'touch m15'", "sh -c \"rm -f m16\"",
    "eval touch m17", "find . -maxdepth 0 -exec touch m18 ';'", "nice -n 1 touch m19",
]


@st.composite
def atoms(draw) -> tuple[str, bool]:
    prefix = draw(st.sampled_from(["", "", "", "timeout 9 ", "nohup ", "env B=2 ", "command "]))
    if draw(st.integers(0, 3)) == 0:
        return prefix + draw(st.sampled_from(DENIED_ATOMS)), True
    return prefix + draw(st.sampled_from(ALLOWED_ATOMS)), False


def combine(children):
    binary = st.sampled_from([" && ", " || ", " ; ", " | ", " & ", "\n", " |& "])
    wrap = st.sampled_from(
        [
            "echo $({})",
            "echo `{}`",
            "cat <({})",
            "ls >({})",
            "( {} )",
            "{{ {}; }}",
            "{} > out.txt",
            "{} 2>&1",
            "{} < README.md",
            "{} >> log.txt 2>/dev/null",
            "if true; then {}; fi",
            "if {}; then ls; fi",
            "bash -c '{}'",
            "time {}",
            "while false; do {}; done",
            "for i in 1 2; do {}; done",
            "case a in a) {};; esac",
            "f() {{ {}; }}",
            "x=$({})",
            'echo "$({})"',
            "echo $((1 + $({})))",
            "! {}",
            "echo ${{x:-$({})}}",
            "[[ -n $({}) ]]",
            "cat <<EOF\n$({})\nEOF",
            "{}\n",
        ]
    )

    def join(parts):
        (left, bad_left), op, (right, bad_right) = parts
        return f"{left}{op}{right}", bad_left or bad_right

    def wrapped(parts):
        template, (inner, bad) = parts
        if ("`" in template and "`" in inner) or ("'" in template and "'" in inner):
            return f"echo $({inner})", bad  # the quotes would not nest
        return template.format(inner), bad

    return st.one_of(
        st.tuples(children, binary, children).map(join),
        st.tuples(wrap, children).map(wrapped),
    )


lines = st.recursive(atoms(), combine, max_leaves=6)


def decide(command: str, mode: str, workspace: Path) -> str:
    policy = ApprovalPolicy(ToolRules(allow_shell=ALLOW, deny_shell=DENY))
    state = AgentState(session_id="s", workspace=workspace, history=[], approval_mode=mode)
    call = ToolCall(name="run_shell_command", arguments={"command": command})
    return policy.decide(state, call, RunShellCommand(), ToolContext(workspace=workspace)).action


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=lines, mode=st.sampled_from(["default", "auto_edit", "yolo"]))
def test_no_denied_command_is_ever_allowed(line, mode, tmp_path):
    command, has_denied = line
    decision = decide(command, mode, tmp_path)
    if has_denied:
        assert decision == "deny", (command, mode)
    if not judge_shell(command, deny=DENY, allow=ALLOW, mode=mode, workspace=tmp_path).script.parsed:
        assert decision == "deny", (command, mode)  # what cannot be read is refused


def spy_bin(folder: Path, marks: Path) -> Path:
    """``touch`` and ``rm`` that only leave a mark (so running the line shows whether they ran)."""
    folder.mkdir(exist_ok=True)
    for name in DENY:
        spy = folder / name
        spy.write_text(f"#!/bin/sh\necho {name} >> {marks}\n")
        spy.chmod(0o755)
    return folder


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=lines)
def test_what_the_rules_allow_never_runs_a_denied_command_in_real_bash(line, tmp_path_factory):
    command, has_denied = line
    workspace = tmp_path_factory.mktemp("ws")
    (workspace / "README.md").write_text("hi\n")
    allowed = decide(command, "auto_edit", workspace) == "allow"
    event(f"allowed: {allowed}")
    if not allowed:
        return
    assert not has_denied
    marks = workspace.parent / f"{workspace.name}-marks"
    env = {
        **os.environ,
        "PATH": f"{spy_bin(workspace.parent / (workspace.name + '-bin'), marks)}:{os.environ['PATH']}",
    }
    subprocess.run(
        ["bash", "-c", command],
        cwd=workspace,
        env=env,
        capture_output=True,
        timeout=20,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert not marks.exists(), command


def test_the_generated_lines_do_hide_denied_commands_that_bash_runs(tmp_path):
    """The spies work: without the rules, bash does run the denied commands the generator hides."""
    marks = tmp_path / "marks"
    env = {**os.environ, "PATH": f"{spy_bin(tmp_path / 'bin', marks)}:{os.environ['PATH']}"}
    for line in [
        "ls & touch X",
        "ls <(touch X)",
        'echo `r""m x`',
        "{ ls; \\rm x; }",
        "echo $((1 + $(touch y)))",
    ]:
        marks.unlink(missing_ok=True)
        subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, timeout=20, check=False
        )
        assert marks.exists(), line
        assert decide(line, "yolo", tmp_path) == "deny"
