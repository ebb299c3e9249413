"""The shell half of approval: what ``agent.rules.deny_shell`` / ``allow_shell`` say about a command
line, read with the bash grammar (``acode.tools.shell_parse``), and where its redirections write.

- A deny prefix matches any invocation anywhere in the line (substitutions, subshells, background
  parts, pipelines, wrapped commands such as ``timeout 5 rm``); ``/bin/rm`` and ``\\rm`` count as ``rm``.
  A word known only at run time may be anything, so it matches a deny prefix and never an allow prefix.
- The line is allowed by rules only when every invocation matches an allow prefix.
- A redirection that writes a file is an edit: inside the workspace it needs what an edit needs;
  outside it, into ``.git/`` or ``.acode/``, or to a path known only at run time it is denied.
- A line the grammar cannot read, or that runs a command known only at run time, is denied, except
  in yolo mode without deny rules.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from acode.tools.paths import protected_part
from acode.tools.shell_parse import Invocation, ShellScript, Word, analyze

_HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


@dataclass
class ShellJudgement:
    denied: str | None = None  # the reason, when some rule or fact forbids the line
    allowed_by_rules: bool = False  # every invocation matches allow_shell (or an earlier "always")
    writes: list[str] = field(default_factory=list)  # workspace files its redirections write
    script: ShellScript | None = None


def split_prefix(prefix: str) -> list[str]:
    return prefix.split()


def prefix_matches(words: tuple[Word, ...], prefix: str, *, unknown_matches: bool) -> bool:
    """Whether ``words`` start with the words of ``prefix``. The program may be given as a path
    (``/usr/bin/git`` is ``git``) only when ``unknown_matches`` (the deny side)."""
    wanted = split_prefix(prefix)
    if not wanted or len(words) < len(wanted):
        return False
    for index, (word, want) in enumerate(zip(words, wanted, strict=False)):
        if word is None:
            if not unknown_matches:
                return False
            continue
        if word == want:
            continue
        if index == 0 and unknown_matches and "/" in word and os.path.basename(word) == want:
            continue
        return False
    return True


def judge_shell(
    command: str,
    *,
    deny: list[str],
    allow: list[str],
    mode: str,
    workspace: Path,
    cwd: Path | None = None,
    extra_writable: tuple[Path, ...] = (),
) -> ShellJudgement:
    script = analyze(command)
    judgement = ShellJudgement(script=script)
    lenient = mode == "yolo" and not deny
    if not script.parsed:
        if not lenient:
            judgement.denied = (
                f"denied: the command could not be read as bash ({script.problem}), so the shell rules "
                "cannot be checked; fix the quoting or split it into simpler commands."
            )
        return judgement
    for invocation in script.invocations:
        for prefix in deny:
            if prefix_matches(invocation.words, prefix, unknown_matches=True):
                judgement.denied = f"denied by agent.rules.deny_shell ('{prefix}' in `{_shown(invocation)}`)"
                return judgement
    if script.opaque and not lenient:
        judgement.denied = f"denied: {script.opaque[0]}; the shell rules cannot be checked on it."
        return judgement
    if mode != "yolo":
        problem = _check_writes(script, workspace, cwd or workspace, extra_writable, judgement.writes)
        if problem:
            judgement.denied = problem
            return judgement
    judgement.allowed_by_rules = bool(script.invocations) and not script.opaque and all(
        any(prefix_matches(inv.words, prefix, unknown_matches=False) for prefix in allow)
        for inv in script.invocations
        if not inv.wrapper
    )
    return judgement


def _shown(invocation: Invocation) -> str:
    return " ".join(invocation.text.split())[:120]


def _cwd_candidates(script: ShellScript, cwd: Path) -> list[Path] | None:
    """Where the line may be when it writes: the start folder and every literal ``cd`` target after
    it (combined in order); None when a ``cd`` goes somewhere only known at run time."""
    candidates = [cwd]
    for target in script.cd_targets:
        if target is None or target == "-":
            return None
        step = Path(target)
        candidates = list(
            dict.fromkeys([*candidates, *(c / step if not step.is_absolute() else step for c in candidates)])
        )
        if len(candidates) > 64:
            return None
    return candidates


def _check_writes(
    script, workspace: Path, cwd: Path, extra: tuple[Path, ...], inside: list[str]
) -> str | None:
    root = Path(os.path.realpath(workspace))
    folders = _cwd_candidates(script, cwd)
    for write in script.writes:
        target = write.target
        if target is not None and (target in _HARMLESS_TARGETS or target.startswith("/dev/fd/")):
            continue
        if target is None or (folders is None and not os.path.isabs(target)):
            return (
                f"denied: `{write.text}` writes to a path only known when the command runs; "
                "write to a plain path inside the workspace."
            )
        for folder in folders or [cwd]:
            real = Path(os.path.realpath(Path(folder) / target))
            if real != root and root not in real.parents and not _in_extra(real, extra):
                return f"denied: `{write.text}` writes outside the workspace ({real})."
            part = protected_part(root, real)
            if part and not _in_extra(real, extra):
                return f"denied: `{write.text}` writes into {part}/, which only the user edits."
            shown = real.relative_to(root).as_posix() if real != root else "."
            if shown not in inside:
                inside.append(shown)
    return None


def _in_extra(path: Path, extra: tuple[Path, ...]) -> bool:
    for allowed in extra:
        allowed = Path(os.path.realpath(allowed))
        if path == allowed or allowed in path.parents:
            return True
    return False


def remembered_programs(command: str) -> list[str]:
    """What an "always" answer remembers: the program of every invocation (``pytest -q`` -> ``pytest``)."""
    script = analyze(command)
    if not script.parsed:
        return []
    return list(dict.fromkeys(inv.name for inv in script.invocations if inv.name))
