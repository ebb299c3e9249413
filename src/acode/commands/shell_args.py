"""``{{args}}`` inside a custom command's ``!{...}``: the arguments never become shell code.

The value goes to the command in the environment variable ``ACODE_ARGS``; the template gets a
reference to it, quoted for the place it stands in (plain, inside "...", inside '...', inside $'...').
Whatever the arguments hold (``$(touch X)``, quotes, backticks), bash only ever expands a variable.
The one context where bash evaluates a variable's value is arithmetic (``$((...))``, ``((...))``,
``[[ ... -eq ... ]]``, ``let``): there the arguments must be plain (letters, digits, ``_./:@%+,=-``).
"""

from __future__ import annotations

import re

from acode.errors import UsageError

ARGS = "{{args}}"
ARGS_VARIABLE = "ACODE_ARGS"
_PLAIN = re.compile(r"[A-Za-z0-9_./:@%+,=-]*")
_REFERENCE = {
    "code": f'"${{{ARGS_VARIABLE}}}"',
    "double": f"${{{ARGS_VARIABLE}}}",
    "single": f"'\"${{{ARGS_VARIABLE}}}\"'",
    "ansi": f"'\"${{{ARGS_VARIABLE}}}\"$'",
}


def _context_at(stack: list[str]) -> str:
    top = stack[-1]
    return top if top in ("double", "single", "ansi") else "code"


def _reevaluated(command: str) -> bool:
    """Whether ``{{args}}`` sits in text that ``eval`` or ``sh -c`` would run again as code."""
    from acode.tools.shell_parse import analyze

    marker = "ACODEARGSMARKER"
    script = analyze(command.replace(ARGS, marker))
    return any(
        (inv.wrapped_by in ("eval", "watch") or inv.wrapped_by.endswith(" -c")) and marker in inv.text
        for inv in script.invocations
    )


def bind_args(command: str, args: str) -> str:
    """``command`` with every ``{{args}}`` replaced by a quoted reference to ``$ACODE_ARGS``."""
    if ARGS in command and args and _reevaluated(command):
        raise UsageError(
            "ACODE-CMD-014",
            "{{args}} is handed to eval or `sh -c` in this command's !{...}, which would run the arguments "
            "as code",
            hint="pass the arguments to the command directly instead of through eval / sh -c",
        )
    out: list[str] = []
    stack = ["code"]
    arithmetic = 0  # depth of $(( / (( / [[ / let contexts
    i = 0
    while i < len(command):
        if command.startswith(ARGS, i):
            if arithmetic and not _PLAIN.fullmatch(args):
                raise UsageError(
                    "ACODE-CMD-013",
                    "{{args}} stands inside an arithmetic or [[ ]] test in this command's !{...}, where bash "
                    "would evaluate it; the arguments given are not plain",
                    hint="give plain arguments (letters, digits, _./:@%+,=-) or change the command template",
                )
            out.append(_REFERENCE[_context_at(stack)])
            i += len(ARGS)
            continue
        char, top = command[i], stack[-1]
        pair = command[i : i + 2]
        step = 1
        if top == "single":
            if char == "'":
                stack.pop()
        elif top == "ansi":
            if char == "\\":
                step = 2
            elif char == "'":
                stack.pop()
        elif top == "double":
            if char == "\\":
                step = 2
            elif char == '"':
                stack.pop()
            elif pair == "$(":
                stack.append("subst")
                step = 2
            elif char == "`":
                stack.append("backtick")
        else:  # code: plain, inside $( ), ( ), backticks
            if char == "\\":
                step = 2
            elif pair == "$'":
                stack.append("ansi")
                step = 2
            elif char == "'":
                stack.append("single")
            elif char == '"':
                stack.append("double")
            elif command.startswith("$((", i) or pair == "((":
                stack.append("arith")
                arithmetic += 1
                step = 3 if command.startswith("$((", i) else 2
            elif pair == "[[" or re.match(r"let\b", command[i:]):
                stack.append("test")
                arithmetic += 1
                step = 2 if pair == "[[" else 3
            elif top == "arith" and pair == "))":
                stack.pop()
                arithmetic -= 1
                step = 2
            elif top == "test" and (pair == "]]" or (command[i] in ";\n&|" and command[i - 2 : i] != "[[")):
                stack.pop()
                arithmetic -= 1
                step = 2 if pair == "]]" else 1
            elif pair == "$(":
                stack.append("subst")
                step = 2
            elif char == "(":
                stack.append("paren")
            elif char == ")" and top in ("subst", "paren"):
                stack.pop()
            elif char == "`":
                if top == "backtick":
                    stack.pop()
                else:
                    stack.append("backtick")
        out.append(command[i : i + step])
        i += step
    return "".join(out)
