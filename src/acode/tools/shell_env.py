"""Environment variables and git settings that make a program run or load other code.

An assignment in front of a command (``GIT_PAGER='rm x' git log``), through ``env``, ``export`` or a
plain ``X=...;`` (an exported variable stays exported), and a ``git -c key=value`` are part of what a
command line runs. ``env_effect`` and ``git_config_effect`` classify them:

- ``command``: the value is a command line a shell runs (``GIT_EXTERNAL_DIFF``, ``PAGER``,
  ``core.fsmonitor``, ``alias.x=!...``): the shell rules read it like ``bash -c``.
- ``code``: the value is code or config the rules cannot read (``BASH_FUNC_x%%``, ``PERL5OPT``,
  ``GIT_CONFIG_*``, ``include.path``): deny rules cannot be checked on it.
- ``loads``: the value names files a program loads and runs (``LD_PRELOAD``, ``PYTHONPATH``, ``PATH``):
  like running a file, no deny rule can see into it, and no allow rule covers it.
"""

from __future__ import annotations

import re
from typing import Literal

Effect = Literal["command", "code", "loads"] | None

COMMAND_VARS = frozenset({
    "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "MANPAGER", "SYSTEMD_PAGER", "GIT_EDITOR", "EDITOR",
    "VISUAL", "FCEDIT", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS",
    "SUDO_ASKPASS", "GIT_PROXY_COMMAND", "BROWSER", "LESSOPEN", "LESSCLOSE", "PROMPT_COMMAND",
    "CC", "CXX", "MAKE", "SHELL", "CONFIG_SHELL",
})
CODE_VARS = frozenset({
    "PS4", "PERL5OPT", "PERL5DB", "NODE_OPTIONS", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS", "SHELLOPTS", "BASHOPTS", "MAKEFLAGS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
})
CODE_PREFIXES = ("BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")
LOADS_VARS = frozenset({
    "BASH_ENV", "ENV", "PATH", "HOME", "XDG_CONFIG_HOME", "ZDOTDIR", "INPUTRC", "GCONV_PATH", "GIT_DIR",
    "GIT_WORK_TREE", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "PERL5LIB", "PERLLIB", "RUBYLIB", "NODE_PATH", "CLASSPATH",
    "MAKEFILES",
})
LOADS_PREFIXES = ("LD_", "DYLD_", "PYTHON", "NPM_CONFIG_", "PIP_", "LUA_")


def env_effect(name: str) -> Effect:
    upper = name.upper()
    if name in COMMAND_VARS:
        return "command"
    if name in CODE_VARS or name.startswith(CODE_PREFIXES):
        return "code"
    if name in LOADS_VARS or upper.startswith(LOADS_PREFIXES):
        return "loads"
    return None


_GIT_COMMAND_KEYS = frozenset({
    "core.pager", "core.editor", "core.fsmonitor", "core.sshcommand", "core.askpass", "core.gitproxy",
    "diff.external", "sequence.editor", "gpg.program", "credential.helper", "interactive.difffilter",
    "uploadpack.packobjectshook", "web.browser", "sendemail.smtpserver", "ssh.variant",
})
_GIT_COMMAND_PATTERNS = re.compile(
    r"^(pager\.[^.]+|diff\..+\.(textconv|command)|filter\..+\.(clean|smudge|process)|merge\..+\.driver"
    r"|credential\..+\.helper|gpg\..+\.program|remote\..+\.(uploadpack|receivepack|proxy)"
    r"|(browser|man|mergetool|difftool)\..+\.(cmd|path))$"
)
_GIT_CODE_KEYS = re.compile(r"^(core\.hookspath|include\.path|includeif\..+\.path|core\.worktree)$")
_BOOLEANS = frozenset({"true", "false", "yes", "no", "on", "off", "1", "0", ""})


def git_config_effect(key: str, value: str | None) -> tuple[Effect, str | None]:
    """What a ``git -c key=value`` runs: ("command", the shell text), ("code", None) or (None, None).
    An alias without ``!`` runs git itself with those arguments (returned as "git ...")."""
    key = key.lower()
    if key.startswith("alias."):
        if value is None:
            return "code", None
        return "command", value[1:] if value.startswith("!") else f"git {value}"
    if key in _GIT_COMMAND_KEYS or _GIT_COMMAND_PATTERNS.match(key):
        if value is not None and value.lower() in _BOOLEANS:
            return None, None  # core.fsmonitor=false, pager.log=false: no program
        return ("command", value) if value is not None else ("code", None)
    if _GIT_CODE_KEYS.match(key):
        return "code", None
    return None, None


_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
                 "--get-colorbool"}
_CONFIG_WRITES = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
                  "-e", "--edit"}
_CONFIG_VALUES = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}


def git_config_call(args: tuple[str | None, ...]) -> tuple[bool, str | None, str | None, str | None]:
    """For the words after ``git config``: (whether it writes, the file it writes: ``.git/config``, the
    ``--file``, ``~/.gitconfig`` for ``--global`` ... or None when only known at run time, the key,
    the value it sets)."""
    operands: list[str | None] = []
    flags: set[str] = set()
    target: str | None = ".git/config"
    index = 0
    while index < len(args):
        word = args[index]
        if word is None:
            operands.append(None)
        elif word in _CONFIG_VALUES:
            if word in ("-f", "--file"):
                target = args[index + 1] if index + 1 < len(args) else None
            index += 1
        elif word.startswith("--file="):
            target = word.split("=", 1)[1]
        elif word in ("--global", "--system"):
            target = "~/.gitconfig" if word == "--global" else "/etc/gitconfig"
        elif word.startswith("-"):
            flags.add(word.split("=", 1)[0])
        else:
            operands.append(word)
        index += 1
    verb = operands[0] if operands and operands[0] in ("get", "list", "set", "unset", "rename-section",
                                                      "remove-section", "edit") else None
    if verb is not None:
        operands = operands[1:]
        writes = verb not in ("get", "list")
    else:
        writes = bool(flags & _CONFIG_WRITES) or (not flags & _CONFIG_READS and len(operands) >= 2)
    key = operands[0] if operands else None
    value = operands[1] if len(operands) > 1 and writes else None
    return writes, target, key, value
