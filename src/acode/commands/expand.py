"""Turn a custom command and its arguments into the prompt sent to the agent.

Order (as in Gemini CLI): ``@{path}`` file injection, then ``!{command}`` shell injection, then
``{{args}}``. The template is split into pieces once, so text that a file or a command injects is never
scanned again: a file holding ``!{rm -rf ~}`` stays text. Inside ``!{...}`` the arguments reach the
command only through the environment variable ``ACODE_ARGS`` (``acode.commands.shell_args``), never as
shell code. The agent's shell judge decides, with the same rules as for its own calls and ``!`` in the
chat: a command ``agent.rules.deny_shell`` denies never runs, one runs without asking only when every
command in it matches ``agent.rules.allow_shell`` (read with the bash grammar), else it is asked about.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from acode.commands.shell_args import ARGS, ARGS_VARIABLE, bind_args
from acode.errors import UsageError

MAX_INJECT_CHARS = 50_000

# confirm(command) -> True to run it. None means non-interactive: only allowed prefixes run.
ConfirmShell = Callable[[str], bool]


@dataclass(frozen=True)
class ShellRules:
    """``agent.rules.allow_shell`` / ``deny_shell`` and the session's approval mode."""

    allow: Sequence[str] = ()
    deny: Sequence[str] = ()
    mode: str = "default"


@dataclass(frozen=True)
class Piece:
    kind: str  # "text" | "file" | "shell"
    value: str


def split_template(template: str) -> list[Piece]:
    """Text, ``@{...}`` and ``!{...}`` pieces; braces inside an injection may nest."""
    pieces: list[Piece] = []
    text_start = i = 0
    while i < len(template) - 1:
        pair = template[i : i + 2]
        if pair in ("@{", "!{"):
            end = _closing_brace(template, i + 2)
            if end is not None:
                if i > text_start:
                    pieces.append(Piece("text", template[text_start:i]))
                pieces.append(Piece("file" if pair == "@{" else "shell", template[i + 2 : end].strip()))
                i = text_start = end + 1
                continue
        i += 1
    if text_start < len(template):
        pieces.append(Piece("text", template[text_start:]))
    return pieces


def _closing_brace(text: str, start: int) -> int | None:
    depth = 1
    for j in range(start, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return None


def inject_file(raw: str, workspace: Path) -> str:
    root = workspace.resolve()
    target = (root / raw).resolve()
    if not target.is_relative_to(root):
        raise UsageError(
            "ACODE-CMD-010",
            f"@{{{raw}}} points outside the workspace {root}",
            hint="custom commands may only inject files inside the project",
        )
    if not target.is_file():
        raise UsageError("ACODE-CMD-011", f"@{{{raw}}}: no such file {target}")
    from acode.agent.session.at_refs import reference_refusal
    from acode.tools.ignore import IgnoreRules

    why = reference_refusal(root, target.relative_to(root).as_posix(), IgnoreRules(root))
    if why:
        raise UsageError(
            "ACODE-CMD-013",
            f"@{{{raw}}} is not injected: the file is {why}",
            hint="the same files as a prompt's @path may be injected (not .git/, .acode/, ignored or binary "
            "files)",
        )
    return target.read_text(encoding="utf-8", errors="replace")[:MAX_INJECT_CHARS]


def run_injected_shell(command: str, workspace: Path, timeout: float = 60.0, args: str = "") -> str:
    env = {**os.environ, ARGS_VARIABLE: args}
    try:
        done = subprocess.run(
            ["bash", "-c", command], cwd=workspace, capture_output=True, text=True, timeout=timeout,
            check=False, env=env, stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"[Shell command timed out after {timeout:.0f}s: {command}]"
    out = done.stdout
    if done.returncode != 0:
        out += (
            f"\n{done.stderr}" if done.stderr else ""
        ) + f"\n[Shell command exited with code {done.returncode}]"
    return out[:MAX_INJECT_CHARS]


def shell_refusal(
    command: str,
    confirm: ConfirmShell | None,
    rules: ShellRules,
    workspace: Path,
    shown: str | None = None,
) -> str | None:
    """None when ``command`` may run, else why not. The agent's judge with the session's rules: a line
    that ``deny_shell`` (or the bash grammar) denies is refused without a question, one that every
    ``allow_shell`` prefix covers runs, anything else runs only when ``confirm`` says so."""
    from acode.agent.approval.shell_rules import judge_shell

    judged = judge_shell(
        command, deny=list(rules.deny), allow=list(rules.allow), mode=rules.mode, workspace=workspace
    )
    if judged.denied:
        return judged.denied
    if judged.allowed_by_rules and not judged.writes:
        return None
    if confirm and confirm(shown or command):
        return None
    return "it was not allowed"


def expand_command(
    template: str,
    args: str,
    workspace: Path,
    *,
    confirm: ConfirmShell | None = None,
    allow_shell: Sequence[str] = (),
    deny_shell: Sequence[str] = (),
    approval_mode: str = "default",
    shell_timeout: float = 60.0,
) -> str:
    args = args.strip()
    rules = ShellRules(tuple(allow_shell), tuple(deny_shell), approval_mode)
    pieces = split_template(template)
    resolved: list[str | None] = [None] * len(pieces)
    for index, piece in enumerate(pieces):
        if piece.kind == "file":
            resolved[index] = inject_file(piece.value, workspace)
    for index, piece in enumerate(pieces):
        if piece.kind == "shell":
            command = bind_args(piece.value, args)
            shown = (
                command
                if ARGS not in piece.value
                else f"{command}   (with {ARGS_VARIABLE}={shlex.quote(args)})"
            )
            refusal = shell_refusal(command, confirm, rules, workspace, shown)
            if refusal is not None:
                raise UsageError(
                    "ACODE-CMD-012",
                    f"the shell command `{shown}` in this custom command was not allowed: {refusal}",
                    hint="confirm it when asked, or add its prefix to agent.rules.allow_shell "
                    "(agent.rules.deny_shell always wins)",
                    exit_code=51,
                )
            resolved[index] = run_injected_shell(command, workspace, shell_timeout, args)
    out = "".join(
        piece.value.replace(ARGS, args) if piece.kind == "text" else (resolved[i] or "")
        for i, piece in enumerate(pieces)
    )
    if ARGS not in template and args:
        out = f"{out.rstrip()}\n\n{args}"
    return out
