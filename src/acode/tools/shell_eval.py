"""Words bash evaluates as code although they look like data: variable names and arithmetic.

Bash evaluates an array subscript as arithmetic, and arithmetic expands ``$(...)`` inside a
subscript and evaluates a variable's *value* as arithmetic again, so ``printf -v 'a[$(rm f)]' %s 1``
and ``x='a[$(rm f)]'; echo $((x))`` both run ``rm``. Where bash does it (checked with bash 5.2):

- names: ``printf -v NAME``, ``read NAME``, ``mapfile``/``readarray NAME``, ``declare``/``typeset``/
  ``local``/``export``/``readonly NAME[=...]``, ``unset NAME``, ``getopts OPTS NAME``, ``wait -p NAME``,
  ``test -v``/``[ -v``/``[[ -v NAME``, ``${!NAME}``, assignments ``a[SUB]=...``, ``${a[SUB]}``;
- arithmetic: ``$((...))``, ``$[...]``, ``((...))``, ``for ((...))``, ``let``, ``[[ A -eq B ]]`` (and the
  other integer comparisons), ``${x:OFFSET:LENGTH}``, and every assignment after ``declare -i``.

A subscript holding ``$``/backticks, a name only known at run time, a ``declare -i``/``-n``, and
arithmetic that reads a variable the same line sets to something other than a number (or one whose
value comes from data: ``$1``, ``REPLY``, ``PWD`` ...) are code the rules cannot read.
"""

from __future__ import annotations

import re

Word = str | None

# Variables whose value comes from data (arguments, input, the file system), never from the user.
DATA_VARS = frozenset({
    "REPLY", "OPTARG", "MAPFILE", "BASH_REMATCH", "_", "PWD", "OLDPWD", "BASH_ARGV", "BASH_ARGV0",
    "BASH_COMMAND", "READLINE_LINE", "COMP_LINE", "COMP_WORDS", "FUNCNAME", "BASH_SOURCE",
})
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
DECLARATIONS = frozenset({"declare", "typeset", "local", "export", "readonly"})

_SUBSTITUTION = re.compile(r"\$\((?!\()|`")
_NUMBER = re.compile(r"\b(?:0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)\b")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_POSITIONAL = re.compile(r"\$\{?([0-9@*])")
_NAME_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(.*?)\])?(\+?=(.*))?\Z", re.DOTALL)
_INTEGER = re.compile(r"[+-]?\d+\Z")
_OFFSET = re.compile(r"\$\{[#!]?([A-Za-z_][A-Za-z0-9_]*|[0-9@*])(\[[^]]*\])?:(?![-=?+])(.*)\}\Z", re.DOTALL)
_INDIRECT = re.compile(r"\$\{!([A-Za-z_][A-Za-z0-9_]*|[0-9])(?![*@]\}|\[[*@]\])")
_PROMPT = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9@*])(\[[^]]*\])?@P\}\Z")


def arithmetic_names(text: str) -> set[str] | None:
    """The variables bash reads when it evaluates ``text`` as arithmetic (``"1"`` for ``$1``), or None
    when ``text`` holds a command substitution (its output is evaluated as arithmetic in turn)."""
    if _SUBSTITUTION.search(text):
        return None
    names = {m.group(1) for m in _POSITIONAL.finditer(text)}
    return names | set(_IDENTIFIER.findall(_NUMBER.sub(" ", _POSITIONAL.sub(" ", text))))


def split_name_word(word: str) -> tuple[str, str | None, str | None] | None:
    """``a[SUB]=VALUE`` -> ("a", "SUB", "VALUE"); None when it is no variable name (bash refuses it)."""
    match = _NAME_WORD.match(word)
    if not match:
        return None
    return match.group(1), match.group(2), match.group(4) if match.group(3) else None


def is_number(value: Word) -> bool:
    return value is not None and bool(_INTEGER.match(value.strip()))


def expansion_arithmetic(text: str) -> tuple[str | None, str | None]:
    """For a ``${...}`` expansion: its offset/length text (arithmetic) and the variable whose value
    bash reads as code: as a name (``${!x}``) or as a prompt string (``${x@P}``)."""
    offset = _OFFSET.match(text)
    indirect = _INDIRECT.match(text) or _PROMPT.match(text)  # ${x@P} expands $(...) in the value
    return (offset.group(3) if offset else None), (indirect.group(1) if indirect else None)


def builtin_names(base: str, words: tuple[Word, ...]) -> tuple[list[Word], list[Word], Word | str]:
    """For a builtin that takes variable names or arithmetic: (name words, arithmetic words, the
    ``mapfile -C`` callback or "" when none)."""
    args = words[1:]
    if base == "let":
        return [], list(args), ""
    if base == "printf":
        names = [args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-v"]
        return names + [w[2:] for w in args if w is not None and w.startswith("-v") and len(w) > 2], [], ""
    if base == "read":
        return _operands_and(args, {"-d", "-i", "-n", "-N", "-p", "-t", "-u"}, {"-a"}), [], ""
    if base in ("mapfile", "readarray"):
        names = _operands_and(args, {"-d", "-n", "-O", "-s", "-u", "-c", "-C"}, set())
        callbacks = [args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-C"]
        return names[-1:], [], callbacks[0] if callbacks else ""
    if base == "unset":
        return ([] if "-f" in args else _operands_and(args, set(), set())), [], ""
    if base == "getopts":
        operands = _operands_and(args, set(), set())
        return operands[1:2], [], ""
    if base == "wait":
        return [args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-p"], [], ""
    if base in ("test", "["):
        return [args[i + 1] if i + 1 < len(args) else None for i, w in enumerate(args) if w == "-v"], [], ""
    return [], [], ""


def _operands_and(args: tuple[Word, ...], takes_value: set[str], named: set[str]) -> list[Word]:
    """Operands, plus the values of the options in ``named`` (``read -a NAME``)."""
    found: list[Word] = []
    skip = False
    for index, word in enumerate(args):
        if skip:
            skip = False
        elif word is not None and word.startswith("-") and len(word) > 1:
            if word in named:
                found.append(args[index + 1] if index + 1 < len(args) else None)
            skip = word in takes_value or word in named
        else:
            found.append(word)
    return found
