"""Options of common programs whose value is a command the program runs (``git rebase -x CMD``,
``tar --to-command=CMD``, ``sort --compress-program=CMD``, ``rsync -e CMD``, ``ssh -o ProxyCommand=``,
``sed 's/x/y/e'``). The shell rules read each like ``bash -c`` (what an allowed ``tar`` runs needs
allowing too, and a deny rule sees it).

``option_commands(words)`` returns the command strings (None when only known at run time).
"""

from __future__ import annotations

import os
import re

Word = str | None

# program -> {option: how its value is given}; "value": the next word or --opt=VALUE
_VALUED = {
    "tar": {"--to-command", "-I", "--use-compress-program", "--info-script", "-F", "--new-volume-script",
            "--rsh-command", "--rmt-command"},
    "sort": {"--compress-program"},
    "rsync": {"-e", "--rsh", "--rsync-path"},
    "zip": {"-TT", "--unzip-command"},
    "man": {"-P", "--pager", "-H", "--html"},
}
_GIT = {
    "rebase": {"-x", "--exec"},
    "difftool": {"-x", "--extcmd"},
    "grep": {"-O", "--open-files-in-pager"},
    "send-email": {"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"},
    "filter-branch": {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
                      "--commit-filter", "--tag-name-filter"},
}
_SSH_COMMANDS = re.compile(
    r"^(proxycommand|localcommand|knownhostscommand|permitlocalcommand)\s*[= ]\s*(.*)$",
    re.IGNORECASE | re.DOTALL,
)
# GNU sed: the `e` command and the `e` flag of `s` (run a command), `w`/`W` and the `w` flag (write a file)
_SED_EXEC = re.compile(r"(^|[;\n{}!]|^\s*\d+|[$/])\s*e(\s|;|$)|s(.)[^\n;]*?\3[^\n;]*?\3[gpiImM0-9w]*e")
_SED_WRITE = re.compile(r"(^|[;\n{}!]|\d|[$/])\s*[wW]\s|s(.)[^\n;]*?\2[^\n;]*?\2[gpiImMe0-9]*w\s")


def _values(args: tuple[Word, ...], options: set[str]) -> list[Word]:
    found: list[Word] = []
    for index, word in enumerate(args):
        if word is None:
            continue
        name, has_value, value = word.partition("=")
        if name in options:
            found.append(value if has_value else (args[index + 1] if index + 1 < len(args) else None))
        elif any(word.startswith(short) and len(word) > len(short) for short in options if len(short) == 2):
            found.append(word[2:])  # -xCMD, -Ocmd
    return found


def _git(args: tuple[Word, ...]) -> list[Word]:
    positional = [w for w in args if w is None or not w.startswith("-")]
    sub = positional[0] if positional else None
    if sub in _GIT:
        return _values(args, _GIT[sub])
    if sub == "bisect" and len(positional) > 1 and positional[1] == "run":
        rest = args[args.index("run") + 1 :]
        return [None if None in rest else " ".join(rest)]  # type: ignore[arg-type]
    if sub == "submodule" and "foreach" in args:
        rest = [w for w in args[args.index("foreach") + 1 :] if w != "--recursive"]
        return [None if None in rest else " ".join(rest)]  # type: ignore[arg-type]
    return []


def option_commands(words: tuple[Word, ...]) -> list[Word]:
    if not words or words[0] is None:
        return []
    base, args = os.path.basename(words[0]), words[1:]
    if base == "git":
        return _git(args)
    if base == "tar":
        found = _values(args, _VALUED["tar"])
        for word in args:
            if word is not None and word.startswith("--checkpoint-action=exec="):
                found.append(word.split("=", 2)[2])
        return found
    if base in ("ssh", "scp", "sftp"):
        found = []
        for value in _values(args, {"-o"}):
            match = _SSH_COMMANDS.match(value) if value is not None else None
            if value is None or match:
                found.append(match.group(2) if match else None)
        return found
    if base == "sed":
        if any(s is None or _SED_EXEC.search(s) for s in _sed_scripts(args)):
            return [None]  # what `e` runs is built from the input
        return []
    return _values(args, _VALUED.get(base, set()))


def sed_writes(words: tuple[Word, ...]) -> bool:
    """A sed script with a `w FILE` command or flag (a write to a path the rules do not read)."""
    return any(s is None or _SED_WRITE.search(s) for s in _sed_scripts(words[1:]))


def _sed_scripts(args: tuple[Word, ...]) -> list[Word]:
    """The script words: those of -e, else the first operand."""
    given = _values(args, {"-e", "--expression"})
    return given or [w for w in args if w is None or not w.startswith("-")][:1]
