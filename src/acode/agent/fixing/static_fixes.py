"""Candidates that cost no model call: ruff's findings whose fix changes what the code does, in the code
the prompt shows. A string that was meant to be an f-string (``'Field for "{name}" ...'`` without its
``f``: marshmallow 3.21.0->3.21.1, a real fix the 1.5B looked at for eight calls and never wrote), a
mutable default argument shared between calls, ``is`` against a literal; and one check of acode's own,
which ruff does not have: ``super()`` without arguments inside a comprehension or lambda, a TypeError
before Python 3.12 (flask 3.0.1->3.0.2, a real fix of the tune half: the 1.5B wrote ``super(ScriptInfo,
self)``, the wrong class, in four of its eight line asks). Each finding's fix is one candidate; the tests
choose, like every other candidate. A finding that is not the bug costs one test run.

Ruff is one of acode's own dependencies (the review runs it too); the project's ruff configuration is
ignored: these are not its style rules."""

from __future__ import annotations

import ast
import json
import logging
import subprocess
import sys
from dataclasses import dataclass

from acode.agent.fixing.candidate_source import Candidates, FixSession, Proposal
from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.rewrite import check_candidate

log = logging.getLogger("acode.agent.fixing")
# RUF027: a string with {name} of a variable in scope and no f prefix; B006: a mutable default
# argument; F632: `is` / `is not` against a str, bytes or number literal
RULES = "RUF027,B006,F632"
MAX_FIXES = 5  # per file: a file full of findings is not one bug each


SUPER_IN_COMPREHENSION = "super() in a comprehension"
_NESTED = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


@dataclass(frozen=True)
class StaticFix:
    code: str  # the ruff rule, or SUPER_IN_COMPREHENSION
    line: int
    text: str  # the whole file with the fix applied

    def describe(self, path: str) -> str:
        what = self.code if self.code == SUPER_IN_COMPREHENSION else f"ruff's fix for {self.code}"
        return f"{what} at {path}:{self.line}, no model call"


def static_fixes(view: FileView, timeout: float = 30.0) -> list[StaticFix]:
    """``view`` with one finding's fix applied each, for the findings on lines the prompt shows (all of a
    file shown whole); none for a file that is not Python or when ruff cannot run."""
    if not view.path.endswith(".py"):
        return []
    found = [(f.get("code") or "", f["location"]["row"], _apply(view.text, f["fix"]["edits"]))
             for f in _findings(view, timeout)]
    found += _explicit_super(view.text)
    fixes: list[StaticFix] = []
    for code, line, text in sorted(found, key=lambda f: f[1]):
        if (_shown(view, line) and text != view.text and all(text != f.text for f in fixes)
                and check_candidate(view.path, view.text, text) is None):
            fixes.append(StaticFix(code, line, text))
        if len(fixes) == MAX_FIXES:
            break
    return fixes


def _explicit_super(text: str) -> list[tuple[str, int, str]]:
    """Each ``super()`` inside a comprehension or lambda of a method, written ``super(Class, self)``."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return []
    lines = text.splitlines(keepends=True)
    out = []
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for method in (n for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)):
            if not method.args.args:
                continue
            for call in _bare_super_calls(method):
                line = lines[call.lineno - 1].encode()  # ast columns count UTF-8 bytes
                explicit = f"super({cls.name}, {method.args.args[0].arg})".encode()
                fixed = line[:call.col_offset] + explicit + line[call.end_col_offset or 0:]
                edited = [*lines[:call.lineno - 1], fixed.decode(), *lines[call.lineno:]]
                out.append((SUPER_IN_COMPREHENSION, call.lineno, "".join(edited)))
    return out


def _bare_super_calls(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """``super()`` calls inside the comprehensions and lambdas of this method (not of a nested def)."""
    calls: list[ast.Call] = []

    def visit(node: ast.AST, nested: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if (nested and isinstance(child, ast.Call) and isinstance(child.func, ast.Name)
                    and child.func.id == "super" and not child.args and not child.keywords
                    and child.lineno == child.end_lineno):
                calls.append(child)
            visit(child, nested or isinstance(child, _NESTED))

    visit(method, False)
    return calls


def _findings(view: FileView, timeout: float) -> list[dict]:
    command = [sys.executable, "-m", "ruff", "check", "--preview", "--isolated", "--no-cache", "--select",
               RULES, "--unsafe-fixes", "--output-format", "json", "--exit-zero", "--stdin-filename",
               view.path, "-"]
    try:
        done = subprocess.run(command, input=view.text, capture_output=True, text=True, timeout=timeout,
                              check=False)
        reports = json.loads(done.stdout or "[]") if done.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
        reports = None
        log.warning("ruff could not run on %s: %s", view.path, exc)
    return [r for r in reports or [] if (r.get("fix") or {}).get("edits") and r.get("location")]


def _shown(view: FileView, line: int) -> bool:
    if view.shown_part is None:
        return True
    lines = view.text.splitlines()
    return 0 < line <= len(lines) and lines[line - 1].strip() != "" and lines[line - 1] in view.shown_part


def _apply(text: str, edits: list[dict]) -> str:
    """``text`` with ruff's edits (1-based rows and columns, counted in characters) applied, last first."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(location: dict) -> int:
        row = min(location["row"], len(starts)) - 1
        return min(starts[row] + location["column"] - 1, len(text))

    for edit in sorted(edits, key=lambda e: offset(e["location"]), reverse=True):
        text = text[:offset(edit["location"])] + edit["content"] + text[offset(edit["end_location"]):]
    return text


class StaticFixes:
    """Each fix of the code the prompt shows and of the suspect functions of files it does not show, tested
    before any model call."""

    name = "static"
    counts_as_attempt, keep_if_partial, needs_model = False, True, False

    def candidates(self, session: FixSession) -> Candidates:
        if not session.settings.static_fixes:
            return None
        shown = {v.path for v in session.views}
        for view in [*session.views, *(a.view for a in session.asks if a.view.path not in shown)]:
            for fix in static_fixes(view):
                yield Proposal({view.path: fix.text}, fix.describe(view.path))
        return None
