"""Property: no command line that contains a denied command is ever allowed, however the denied
command is hidden (every list operator, pipelines, background, newlines, $(...), backticks, <(...),
>(...), subshells, { ; } groups, loops, if, case, functions, assignments, arithmetic, wrappers such as
timeout / env / bash -c, quoting tricks; issue 30: assignment prefixes, quoted subscripts and arithmetic
that bash evaluates, shells reading their program from a pipe or a here-string, ``trap``, ``hash -p``,
``flock``, ``git -c alias.x=!...``), and a line the policy does allow, run by real bash with ``touch``
and ``rm`` replaced by spies, never runs either of them. A second property: a line of allowed programs
that write (``tee``, ``sort -o``, ``cp``, ``find -delete`` ..., issue 30 item 11), run by real bash when
the policy allows it, never changes a file outside the workspace or inside its ``.git/``/``.acode/``."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, event, example, given, settings
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
    # issue 30: options whose value is a command
    "sed '1e touch m45' README.md",
    "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='touch m46' README.md",
    "git rebase -x 'touch m47' HEAD", "busybox touch m48", "sed 's/hi/touch m49/e' README.md",
]
# issue 30: code in words bash evaluates, and commands run from data (builtins and statements: a
# wrapper such as `timeout` in front would make them programs that do not exist)
DENIED_STATEMENTS = [
    "printf -v 'a[$(touch m20)]' %s 1", "x='a[$(rm -f m21)]'; echo $((x))", "[[ -v 'a[$(touch m22)]' ]]",
    "declare 'a[$(touch m23)]=1'", "let 'a[$(touch m24)]'", "read 'a[$(touch m25)]' <<< 1",
    "test -v 'a[$(touch m26)]'", "y='a[$(touch m27)]'; : ${b[y]}", "set -- 'a[$(touch m28)]'; : $(($1))",
    "z='a[$(touch m29)]'; [[ $z -eq 1 ]]", "mapfile -C 'touch m30' -c 1 v <<< a",
    "echo 'touch m31' | bash", "source /dev/stdin <<< 'touch m32'", "trap 'touch m33' EXIT",
    "bash <<< 'rm -f m34'", "flock -n lk touch m35", "flock -n lk -c 'touch m36'",
    "git -c alias.q='!touch m37' q",
    "hash -p \"$(command -v touch)\" q; q m38", "printf 'm39\\n' | xargs -I{} sh -c 'touch {}'",
    "alias q='touch m40'", "GIT_PAGER='touch m41' git log", "x='$(touch m42)'; : ${x@P}",
    "compgen -C 'touch m43' x", "git config alias.q '!touch m44'; git q",
]
# assignment prefixes, harmless and not (issue 30 item 2)
PREFIXES = ["", "", "", "timeout 9 ", "nohup ", "env B=2 ", "command ", "LANG=C ", "A[1]=2 ", "PAGER=cat ",
            "env GIT_PAGER=cat ", "LD_PRELOAD= ", "i=3 "]


@st.composite
def atoms(draw) -> tuple[str, bool]:
    prefix = draw(st.sampled_from(PREFIXES))
    if draw(st.integers(0, 3)) == 0:
        return prefix + draw(st.sampled_from(DENIED_ATOMS)), True
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(DENIED_STATEMENTS)), True
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
            "echo $(( i + $({}) ))",
            "x='a[$({})]'; echo $((x))",
            "printf -v 'a[$({})]' %s 1",
            "[[ -v 'a[$({})]' ]]",
            "echo '{}' | bash",
            "trap '{}' EXIT",
            "bash <<< '{}'",
            "i=0; for ((i=0; i<1; i++)); do {}; done",
        ]
    )

    def join(parts):
        (left, bad_left), op, (right, bad_right) = parts
        return f"{left}{op}{right}", bad_left or bad_right

    def wrapped(parts):
        template, (inner, bad) = parts
        if ("`" in template and "`" in inner) or ("'" in template and "'" in inner):
            return f"echo $({inner})", bad  # the quotes would not nest
        if template == "{} < README.md" and re.search(r"(<<< '[^']*'|\| bash)$", inner):
            # `bash <<< 'touch x' < README.md` runs README.md, not touch (the last redirection of stdin wins,
            # as the rules know): redirect the whole line instead, so the denied code still runs
            return f"{{ {inner}; }} < README.md", bad
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
# found by this property: behind `!` (or `command`/`builtin`) a declaration is read as a plain command
@example(line=("! declare 'a[$(touch m23)]=1'", True), mode="yolo")
@example(line=("command export 'a[$(rm -f m50)]=1'", True), mode="yolo")
# the here-string is the code of the command a redirection of the whole group does not replace
@example(line=("{ bash <<< 'touch m1'; } < README.md", True), mode="default")
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
    assert not list(workspace.glob("m[0-9]*")), command  # /usr/bin/touch, `hash -p` past the spies


WRITERS = ["echo hi | tee {t}", "echo hi | tee -a {t}", "sort -o {t} README.md", "cp README.md {t}",
           "git log --output={t}", "find . -maxdepth 0 -fprint {t}", "sed -i s/hi/ho/ {t}",
           "dd if=README.md of={t} status=none", "echo hi > {t}", "find {d} -delete", "git log -1 | tee {t}",
           "ln -s .. lnk", "ln -s ../outside.txt {t}", "cp -r build {d}"]
WRITER_ALLOW = ["cd", "ln", "echo", "tee", "sort", "cp", "git log", "find", "sed", "dd", "cat"]
INSIDE = ["out.txt", "sub/o.txt", ".git/../in2.txt", "build/b.txt", "lnk/l.txt"]
TARGETS = [*INSIDE, *INSIDE, "../outside.txt", ".git/config", ".acode/config.yml", "{abs}",
           "sub/../../outside2.txt", "sub/.git/x", "$HOME/x", "build/../../outside.txt"]
FOLDERS = ["build", "build", "sub", ".", "..", ".git", ".acode", "sub/..", "build/.."]


@st.composite
def writing_lines(draw) -> str:
    parts = []
    for _ in range(draw(st.integers(1, 2))):
        template = draw(st.sampled_from(WRITERS))
        parts.append(template.format(t=draw(st.sampled_from(TARGETS)), d=draw(st.sampled_from(FOLDERS))))
    line = draw(st.sampled_from([" && ", " ; ", "\n"])).join(parts)
    return draw(st.sampled_from(["", "cd sub && ", "cd sub; cd .. && "])) + line


def snapshot(outer: Path, workspace: Path) -> dict[str, bytes]:
    """Every file outside the workspace, and inside its protected folders, with its content."""
    seen = {}
    for path in sorted(outer.rglob("*")):
        inside = workspace in path.parents or path == workspace
        protected = inside and any(p in (".git", ".acode") for p in path.relative_to(workspace).parts)
        if (not inside or protected) and path.is_file():
            seen[str(path)] = path.read_bytes()
        elif (not inside or protected) and path.is_dir():
            seen[str(path)] = b"<dir>"
    return seen


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=writing_lines(), mode=st.sampled_from(["default", "auto_edit", "auto_edit"]))
@example(line="ln -s .. lnk && echo hi | tee lnk/l.txt", mode="auto_edit")
@example(line="git log --output=$HOME/x", mode="auto_edit")
def test_allowed_programs_never_write_outside_the_rules_in_real_bash(line, mode, tmp_path_factory):
    outer = tmp_path_factory.mktemp("outer")
    workspace = outer / "ws"
    for folder in (workspace / "sub" / ".git", workspace / ".acode", workspace / "build", outer / "home"):
        folder.mkdir(parents=True)
    seeded = ["README.md", "build/b.txt", ".acode/config.yml", "sub/.git/x", "../outside.txt", "../abs.txt"]
    for path in (workspace / name for name in seeded):
        path.write_text("hi\n")
    for args in (["init", "-q"], ["add", "README.md"],
                 ["-c", "user.email=a@b", "-c", "user.name=b", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=workspace, check=True, capture_output=True)
    command = line.replace("{abs}", str(outer / "abs.txt"))
    policy = ApprovalPolicy(ToolRules(allow_shell=WRITER_ALLOW))
    state = AgentState(session_id="s", workspace=workspace, history=[], approval_mode=mode)
    call = ToolCall(name="run_shell_command", arguments={"command": command})
    decision = policy.decide(state, call, RunShellCommand(), ToolContext(workspace=workspace))
    allowed = decision.action == "allow"
    event(f"{mode} allowed: {allowed}")
    if not allowed:
        return
    before = snapshot(outer, workspace)
    env = {**os.environ, "HOME": str(outer / "home")}
    subprocess.run(["bash", "-c", command], cwd=workspace, env=env, capture_output=True, timeout=20,
                   stdin=subprocess.DEVNULL, check=False)
    assert snapshot(outer, workspace) == before, command


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
        "printf -v 'a[$(touch p1)]' %s 1",
        "x='a[$(touch p7)]'; echo $((x))",
        "echo 'rm x' | bash",
        "trap 'rm x' EXIT",
        "flock lk rm x",
        "git -c alias.z='!rm x' z",
    ]:
        marks.unlink(missing_ok=True)
        subprocess.run(
            ["bash", "-c", line], cwd=tmp_path, env=env, capture_output=True, timeout=20, check=False
        )
        assert marks.exists(), line
        assert decide(line, "yolo", tmp_path) == "deny"
