"""Ruff as review evidence: maintained, AST-based rules (flake8-bandit ``S``, bugbear ``B``, blind except
``BLE``, pylint warnings ``PLW``, tryceratops ``TRY``, pyflakes ``F`` and syntax errors) run on the old and
the new version of every changed Python file. A finding counts only when it lies on an added line and is
new: the same rule on the same code was not already reported in the base version (moving code, or
touching a line next to an old problem, does not blame the change for it).

The table from a ruff code to a review dimension and severity is ``ruff_rules``; this module runs ruff
and works out, from the code, what the table's adjustments need (a shell command built in place, re flags
where a count goes, a noqa comment on an added line and whether the base already had it).
"""

from __future__ import annotations

import ast
import functools
import json
import logging
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from acode.review.evidence.ruff_rules import PRINTS, SELECT, SHELL, RuleMap, mapping
from acode.test_files import is_test_path

log = logging.getLogger("acode.review")


@dataclass(frozen=True)
class RuffHit:
    path: str
    code: str
    message: str
    line: int
    end_line: int
    fix: str
    column: int = 0  # 1-based start and end columns of the flagged code (0: unknown)
    end_column: int = 0
    applicability: str = ""  # of ruff's fix: safe, unsafe, display-only ("" when it has none)
    edits: tuple[tuple[int, int, int, int, str], ...] = ()  # (line, column, end line, end column, content)


def run_ruff(files: dict[str, str], timeout: float = 120.0) -> list[RuffHit] | None:
    """Ruff with ``SELECT`` on the given texts (path -> source), ignoring any project configuration.
    None when ruff could not run."""
    if not files:
        return []
    with tempfile.TemporaryDirectory(prefix="acode-ruff-") as tmp:
        root = Path(tmp).resolve()
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", SELECT,
                 "--ignore-noqa", "--output-format", "json", "--exit-zero", "."], cwd=root,
                capture_output=True, text=True,
                timeout=timeout, check=False,
            )
            if done.returncode != 0:
                raise subprocess.SubprocessError(done.stderr.strip()[:500])
            reports = json.loads(done.stdout or "[]")
        except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
            log.warning("ruff could not run: %s", exc)
            return None
        hits = []
        for item in reports:
            path = Path(item["filename"]).resolve().relative_to(root).as_posix()
            start = (item.get("location") or {}).get("row") or 1
            end = (item.get("end_location") or {}).get("row") or start
            fix = item.get("fix") or {}
            hits.append(RuffHit(path, item.get("code") or "invalid-syntax", item.get("message", ""), start,
                                end, fix.get("message") or "",
                                (item.get("location") or {}).get("column") or 0,
                                (item.get("end_location") or {}).get("column") or 0,
                                fix.get("applicability") or "", _edits(fix)))
        return hits


def _edits(fix: dict) -> tuple[tuple[int, int, int, int, str], ...]:
    """Ruff's fix edits as (line, column, end line, end column, content); () when any is incomplete."""
    edits = []
    for edit in fix.get("edits") or []:
        start, end = edit.get("location") or {}, edit.get("end_location") or {}
        where = [start.get("row"), start.get("column"), end.get("row"), end.get("column")]
        numbers = [n for n in where if isinstance(n, int) and n > 0]
        content = edit.get("content")
        if len(numbers) != 4 or not isinstance(content, str):
            return ()
        edits.append((numbers[0], numbers[1], numbers[2], numbers[3], content))
    return tuple(edits)


def compare_versions(files: dict[str, tuple[str | None, str, set[int]]]
                     ) -> tuple[dict[str, list[tuple[RuffHit, RuleMap, str]]],
                                dict[str, list[tuple[RuffHit, RuleMap, str]]]]:
    """(findings the change introduces on added lines, findings of the old version the change removes). Both
    are keyed by path; the removed ones carry old line numbers and the old line's text."""
    changed = {p: v for p, v in files.items() if v[2]}
    new_runs = run_ruff({p: new for p, (_, new, _) in changed.items()})
    if new_runs is None:
        return {}, {}
    old_runs = run_ruff({p: old for p, (old, _, _) in changed.items() if old is not None}) or []
    old_keys: dict[str, Counter] = {}
    for hit in old_runs:
        old_keys.setdefault(hit.path, Counter())[_key(files[hit.path][0] or "", hit)] += 1
    new_keys: dict[str, Counter] = {}
    for hit in new_runs:
        new_keys.setdefault(hit.path, Counter())[_key(files[hit.path][1], hit)] += 1
    resolved: dict[str, list[tuple[RuffHit, RuleMap, str]]] = {}
    for hit in sorted(old_runs, key=lambda h: (h.path, h.line)):
        old = files[hit.path][0] or ""
        key = _key(old, hit)
        if new_keys.get(hit.path, Counter())[key] > 0:
            new_keys[hit.path][key] -= 1
            continue
        rule = mapping(hit.code, _span_text(old, hit) + " " + _enclosing_function(old, hit.line),
                       in_test=is_test_path(hit.path))
        if rule is not None:
            resolved.setdefault(hit.path, []).append((hit, rule, old.splitlines()[hit.line - 1]))
    out: dict[str, list[tuple[RuffHit, RuleMap, str]]] = {}
    base_noqa = {p: _suppressions(old) for p, (old, _, _) in changed.items()}
    for hit in sorted(new_runs, key=lambda h: (h.path, h.line)):
        _, new, added = files[hit.path]
        if not any(n in added for n in range(hit.line, hit.end_line + 1)):
            continue
        key = _key(new, hit)
        seen = old_keys.get(hit.path)
        if seen and seen[key] > 0:
            seen[key] -= 1  # the same problem was already there before the change
            continue
        lines = new.splitlines()
        text = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
        where = " ".join(lines[hit.line - 1: hit.end_line]) + " " + _enclosing_function(new, hit.line)
        rule = mapping(hit.code, where, in_test=is_test_path(hit.path),
                       built_command=_command_built_in_place(new, hit) if hit.code in SHELL else True,
                       flags_as_count=hit.code == "B034" and _flags_as_count(new, hit),
                       stray_print=hit.code in PRINTS and _stray_print(hit, files[hit.path][0], new),
                       silenced=_silenced(lines[hit.line - 1: hit.end_line], hit.code,
                                          base_noqa[hit.path], _enclosing_function(new, hit.line)))
        if rule is not None:
            out.setdefault(hit.path, []).append((hit, rule, text))
    return out, resolved


def _command_built_in_place(text: str, hit: RuffHit) -> bool:
    """Whether the command of the shell call ruff reported is a string built in place (True when unsure)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == hit.line and n.args]
    if not calls:
        return True
    command = calls[0].args[0]
    if isinstance(command, (ast.JoinedStr, ast.BinOp)):
        return True
    if (isinstance(command, ast.Call) and isinstance(command.func, ast.Attribute)
            and command.func.attr in ("format", "join")):
        return True
    return not isinstance(command, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant))


_RE_FLAGS = {"A", "ASCII", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE",
             "U", "UNICODE", "DEBUG", "NOFLAG"}
_COUNT_POSITION = {"sub": 3, "subn": 3, "split": 2}


# Ruff runs with --ignore-noqa so that a noqa comment cannot hide a finding; ``_silenced`` tells
# ``ruff_rules.mapping`` which ones it would have hidden, and whose the comment is: the base's (the same rule
# already silenced in the same function before the change: a reviewed exception) or the change's own.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


def _noqa_codes(line: str) -> list[str]:
    """The rule codes a line's noqa comments name ("*" for a bare noqa, which silences every rule)."""
    codes: list[str] = []
    for found in _NOQA.finditer(line):
        named = found.group("codes")
        codes += re.split(r"[\s,]+", named.upper()) if named else ["*"]
    return codes


def _suppressions(text: str | None) -> Counter:
    """(rule code or "*", enclosing function) of every noqa comment in one version of a file."""
    found: Counter = Counter()
    for number, line in enumerate((text or "").splitlines(), 1):
        codes = _noqa_codes(line) if "noqa" in line.lower() else []
        if codes:
            function = _enclosing_function(text or "", number)
            found.update((code, function) for code in codes)
    return found


def _silenced(lines: list[str], code: str, base: Counter, function: str) -> str:
    """"" when no noqa on ``lines`` names ``code``; "base" when the base version already silenced the same
    rule in the same function (each base comment excuses one finding); "change" when the comment is the
    change's own."""
    codes = {c for line in lines for c in _noqa_codes(line)}
    if not codes & {code.upper(), "*"}:
        return ""
    for key in ((code.upper(), function), ("*", function)):
        if base[key] > 0:
            base[key] -= 1
            return "base"
    return "change"


def _flags_as_count(text: str, hit: RuffHit) -> bool:
    """Whether the re call ruff reported passes re flags positionally where the count goes."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    for call in ast.walk(tree):
        if (isinstance(call, ast.Call) and call.lineno <= hit.line <= (call.end_lineno or call.lineno)
                and isinstance(call.func, ast.Attribute) and call.func.attr in _COUNT_POSITION
                and len(call.args) > _COUNT_POSITION[call.func.attr]):
            return _is_flag(call.args[_COUNT_POSITION[call.func.attr]])
    return False


def _is_flag(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_flag(node.left) or _is_flag(node.right)
    return isinstance(node, ast.Attribute) and node.attr in _RE_FLAGS


# Where printing is the job: programs, examples and tooling around a project, not the library itself
_SCRIPT_DIRS = {"scripts", "script", "bin", "examples", "example", "tools", "benchmarks", "docs", "cli"}
_SCRIPT_NAMES = {"__main__.py", "setup.py", "noxfile.py", "conftest.py", "cli.py", "main.py"}


def _stray_print(hit: RuffHit, old: str | None, new: str) -> bool:
    """A print() (without ``file=``) added to an existing library module whose base version never wrote to
    the console: no print call, no ``__main__`` block, not a script, a test or a command-line module."""
    parts = hit.path.split("/")
    if (old is None or is_test_path(hit.path) or parts[-1] in _SCRIPT_NAMES
            or _SCRIPT_DIRS & set(parts[:-1])):
        return False
    try:
        before, after = ast.parse(old), ast.parse(new)
    except (SyntaxError, ValueError):
        return False
    if any(_is_print(node) for node in ast.walk(before)) or "__main__" in old:
        return False
    return any(_is_print(node) and node.lineno == hit.line and not any(k.arg == "file" for k in node.keywords)
               for node in ast.walk(after))


def _is_print(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
    return name in ("print", "pprint")


def _enclosing_function(text: str, line: int) -> str:
    """The name of the innermost function around ``line`` ('' at module level or when it does not parse)."""
    around = [(start, name) for start, end, name in _function_spans(text) if start <= line <= end]
    return max(around)[1] if around else ""


@functools.lru_cache(maxsize=16)
def _function_spans(text: str) -> tuple[tuple[int, int, str], ...]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ()
    return tuple((n.lineno, n.end_lineno or n.lineno, n.name) for n in ast.walk(tree)
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))


def _key(text: str, hit: RuffHit) -> tuple[str, str, str]:
    """What makes two findings the same problem: the rule, the function it is in and the code it flags (the
    call and its arguments, whitespace aside), not the text of its line — a line rewritten around the same
    call (``shelve.open(path)`` wrapped in ``closing(...)``) keeps its old finding."""
    return hit.code, _enclosing_function(text, hit.line), _flagged_code(text, hit) or _span_text(text, hit)


def _flagged_code(text: str, hit: RuffHit) -> str:
    """The exact code ruff's range covers ('' when its columns are unknown)."""
    if not hit.column or not hit.end_column:
        return ""
    lines = text.splitlines()[hit.line - 1: hit.end_line]
    if not lines:
        return ""
    if len(lines) == 1:
        segment = lines[0][hit.column - 1: hit.end_column - 1]
    else:
        segment = " ".join([lines[0][hit.column - 1:], *lines[1:-1], lines[-1][:hit.end_column - 1]])
    return " ".join(segment.split())


def _span_text(text: str, hit: RuffHit) -> str:
    lines = text.splitlines()[hit.line - 1: hit.end_line]
    return " ".join(line.strip() for line in lines)
