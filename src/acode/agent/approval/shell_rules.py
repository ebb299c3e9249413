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
- Code bash evaluates that the rules cannot read (a subscript holding ``$(...)``, arithmetic on a
  variable the line sets to text, a shell reading its program from a pipe, ``hash -p``, a variable
  such as ``BASH_FUNC_x%%`` or ``GIT_CONFIG_*``) is denied when there are deny rules (one could be
  hidden in it) and never allowed by an allow rule (so it asks).
- An allow prefix covers a command with assignments in front (``A=1 cmd``, ``env A=1 cmd``) only
  when it names them (``A=1 cmd``); a line that sets a variable that makes programs load or run
  other code (``LD_PRELOAD``, ``GIT_*`` commands and config, ``PYTHON*``, ``PAGER`` ...) is never
  allowed by a rule.
- Files programs write through their options (``tee x``, ``sort -o x``, ``find -delete``,
  ``git log --output=x``, ``cp a x``) are judged like redirections; one whose path is only known at
  run time asks (never allowed by a rule).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from acode.tools.paths import PROTECTED_DIRS, protected_part
from acode.tools.shell_parse import Invocation, ShellScript, Word, analyze
from acode.tools.shell_writes import makes_links

_HARMLESS_TARGETS = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")


@dataclass
class ShellJudgement:
    denied: str | None = None  # the reason, when some rule or fact forbids the line
    allowed_by_rules: bool = False  # every invocation matches allow_shell (or an earlier "always")
    writes: list[str] = field(default_factory=list)  # workspace files its redirections write
    unknown_writes: bool = False  # a program writes a path only known at run time: ask
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
    if script.hidden and deny:
        judgement.denied = (
            f"denied: {script.hidden[0]}; a command agent.rules.deny_shell refuses could be hidden in it."
        )
        return judgement
    if mode != "yolo":
        problem = _check_writes(script, workspace, cwd or workspace, extra_writable, judgement)
        if problem:
            judgement.denied = problem
            return judgement
        if len(script.writes) > 1 and any(makes_links(inv.words) for inv in script.invocations):
            judgement.unknown_writes = True  # `ln -s .. d && tee d/x`: d/x is judged before d exists
    judgement.allowed_by_rules = (
        bool(script.invocations)
        and not (script.opaque or script.hidden or script.risky_env or judgement.unknown_writes)
        and all(any(_allows(i, prefix) for prefix in allow) for i in script.invocations if not i.wrapper)
    )
    return judgement


def _allows(invocation: Invocation, prefix: str) -> bool:
    """An allow prefix covers assignments in front of a command only by naming them (``A=1 make``)."""
    words = (*invocation.assignments, *invocation.words)
    return prefix_matches(words, prefix, unknown_matches=False)


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
    script, workspace: Path, cwd: Path, extra: tuple[Path, ...], judgement: ShellJudgement
) -> str | None:
    root = Path(os.path.realpath(workspace))
    folders = _cwd_candidates(script, cwd)
    inside = judgement.writes
    for write in script.writes:
        target = write.target
        if target is not None and (target in _HARMLESS_TARGETS or target.startswith("/dev/fd/")):
            continue
        if target is None and write.by_program:
            judgement.unknown_writes = True  # `rm *.o`, `tee $f`: a person looks at it
            if "(a path known at run time)" not in inside:
                inside.append("(a path known at run time)")
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
            part = protected_part(root, real) or (_protected_below(real) if write.tree else None)
            if part and not _in_extra(real, extra):
                return f"denied: `{write.text}` writes into {part}/, which only the user edits."
            shown = real.relative_to(root).as_posix() if real != root else "."
            if shown not in inside:
                inside.append(shown)
    return None


def _protected_below(folder: Path, limit: int = 5000) -> str | None:
    """A ``.git``/``.acode`` folder inside ``folder`` (which ``rm -r`` / ``find -delete`` would reach);
    a tree too big to look through counts as holding one."""
    seen = 0
    for _current, dirs, _files in os.walk(folder):
        found = next((d for d in dirs if d in PROTECTED_DIRS), None)
        if found:
            return found
        seen += len(dirs)
        if seen > limit:
            return ".git"
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
