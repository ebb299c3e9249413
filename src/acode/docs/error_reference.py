"""``docs/reference/exit-codes.md``: the exit codes every command shares (``acode.errors``), which error
kinds end with which, and every ``ACODE-<AREA>-<NNN>`` code found in the source (by reading it with ast:
the code's message and hint are the string arguments after it, ``{...}`` standing for what is filled in)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from acode import errors
from acode.docs.markdown import page, table

CODE = re.compile(r"^ACODE-([A-Z]+)-(\d{3})$")
_PREFIXED = re.compile(r"^\[(ACODE-[A-Z]+-\d{3})\] ?")
INTRO = (
    "What `acode` exits with, and every error code it can print. An error reads "
    "`[ACODE-<AREA>-<NNN>] message` and usually a `hint:` line; search this page for the code."
)
EXIT_MEANINGS = {
    "EXIT_OK": "success (a review that approves, a run that completes)",
    "EXIT_FAILURE": "an error (its code and hint are printed)",
    "EXIT_USAGE": "a wrong flag, argument or setting (a usage or configuration error)",
    "EXIT_REVIEW_REJECTED": "the review rejected the change",
    "EXIT_HUMAN_DECLINED": "a person declined at a question (a plan, a change)",
    "EXIT_REVIEW_TIMEOUT": "the review ran out of time before a verdict",
    "EXIT_INTERRUPTED": "interrupted (Ctrl-C, as a shell reports SIGINT)",
    "crash.EXIT_CODE": "a bug in acode itself: one message naming the crash file its traceback went to "
                       "(`ACODE_TRACEBACK=1` prints it)",
}


@dataclass(frozen=True)
class CodeUse:
    code: str
    message: str
    hint: str
    module: str


def exit_codes() -> list[tuple[str, int, str]]:
    from acode.cli import crash

    shared = [(name, value, EXIT_MEANINGS.get(name, "")) for name, value in vars(errors).items()
              if name.startswith("EXIT_") and isinstance(value, int)]
    bug = ("crash.EXIT_CODE", crash.EXIT_CODE, EXIT_MEANINGS["crash.EXIT_CODE"])
    return sorted([*shared, bug], key=lambda row: row[1])


def error_kinds() -> list[tuple[str, int, str]]:
    kinds = [value for value in vars(errors).values()
             if isinstance(value, type) and issubclass(value, errors.AcodeError)]
    return [(kind.__name__, kind.exit_code, " ".join((kind.__doc__ or "").split())) for kind in kinds]


@cache
def code_uses(src: Path) -> list[CodeUse]:
    """Every code under ``src``: in a call ``X("ACODE-...", message, hint=...)`` (the message may come
    before the code), at the start of a message ``"[ACODE-...] message"``, or named by a constant."""
    uses: set[CodeUse] = set()
    for path in sorted(src.rglob("*.py")):
        module = path.relative_to(src.parent).with_suffix("").as_posix().replace("/", ".")
        source = path.read_text(encoding="utf-8")
        if "ACODE-" not in source:
            continue  # parsing is the slow part; most modules raise nothing of their own
        for node in ast.walk(ast.parse(source)):
            use = _use(node, source.splitlines())
            if use is not None:
                uses.add(CodeUse(use[0], use[1], use[2], module))
    return sorted(uses, key=lambda use: (_area(use.code), use.code, use.module, use.message))


def _use(node: ast.AST, lines: list[str]) -> tuple[str, str, str] | None:
    if isinstance(node, ast.Call):
        codes = [_code(arg) for arg in node.args]
        if any(codes):
            others = [arg for arg, code in zip(node.args, codes, strict=True) if not code]
            message = _text(others[0]) if others else _keyword(node, "message")
            return next(code for code in codes if code), message, _keyword(node, "hint")
    if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
        found = _PREFIXED.match(str(node.values[0].value))
        if found:
            return found.group(1), _text(node)[found.end():], ""
    if isinstance(node, ast.Assign) and _code(node.value) and isinstance(node.targets[0], ast.Name):
        comment = lines[node.lineno - 1].partition("#")[2].strip()
        return _code(node.value), comment or node.targets[0].id.lower().replace("_", " "), ""
    return None


def render(src: Path) -> str:
    body = ["## Exit codes", ""]
    body += table(["code", "name", "meaning"], [[value, f"`{name}`", meaning]
                                                 for name, value, meaning in exit_codes()])
    body += ["", "## Error kinds", "", "An error's kind decides the exit code it ends the command with.", ""]
    body += table(["kind", "exit code", "what"], [[f"`{name}`", code, what]
                                                   for name, code, what in error_kinds()])
    body += ["", "## Error codes", ""]
    uses = code_uses(src)
    for area in sorted({_area(use.code) for use in uses}):
        body += [f"### {area}", ""]
        rows = [[f"`{use.code}`", use.message, use.hint, f"`{use.module}`"]
                for use in uses if _area(use.code) == area]
        body += [*table(["code", "message", "hint", "raised in"], rows), ""]
    return page("Exit and error codes", INTRO, body)


def _code(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
        return node.value
    return ""


def _area(code: str) -> str:
    return code.split("-")[1]


def _keyword(call: ast.Call, name: str) -> str:
    return next((_text(keyword.value) for keyword in call.keywords if keyword.arg == name), "")


def _text(node: ast.AST) -> str:
    """A message as written: literal parts kept, each computed part shown as ``{...}``."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{…}" for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    return "{…}"
