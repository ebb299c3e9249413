"""The type checker on both sides of a change that edits type annotations (mypy, a maintained analyzer).

A change to annotations alone changes no behaviour a test can run: a typing fix (an overload, a
decorator's return type) and the same fix taken out again pass the same tests, and a language model reads
either as plausible. What does tell them apart is the type checker over the project's own type tests
(files that ``assert_type`` or ``reveal_type`` what the public API returns) and over the changed modules.
So, as for the tests: the same files, the reviewed version's, are checked on the reviewed source and on
the base source, and the difference is the evidence. An error that appears with the change is a
regression of the typed API; an error in a type test that the change removes (with none added) confirms a
typing fix.

mypy is run with no configuration file (``--config-file=``: a project's mypy plugins are code) and no
installed packages (``--no-site-packages``), on each tree's ``src/`` and root, inside the review's sandbox
when there is one. Errors are compared by file, message and code, not by line: a change moves lines.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from acode.child_signals import with_default_signals
from acode.errors import AcodeError
from acode.gitcmd import run_git
from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.models import ReviewContext
from acode.sandbox import Sandbox
from acode.test_files import is_test_path

MAX_FILES = 40
TYPE_TEST_PATH = re.compile(r"(^|/)(typing|typesafety|mypy[^/]*|type_?tests?|types?_checks?)/")
_TYPE_ASSERTION = re.compile(r"\b(assert_type|reveal_type)\(")
_ERROR = re.compile(
    r"^(?P<path>[^:\n]+\.pyi?):\d+(?::\d+)?: error: (?P<message>.*?)(?:\s+\[(?P<code>[\w-]+)\])?$")
MYPY_FLAGS = ("--config-file=", "--no-incremental", "--follow-imports=silent", "--ignore-missing-imports",
              "--no-site-packages", "--show-error-codes", "--no-error-summary", "--hide-error-context",
              "--no-color-output", "--no-pretty")


@dataclass
class TypeContrast:
    files: list[str]
    introduced: list[str] = field(default_factory=list)  # "path: message [code]", new with the change
    removed: list[str] = field(default_factory=list)  # errors of the base the change makes go away
    note: str = ""

    def record(self) -> dict:
        return {"files": self.files, "introduced": self.introduced, "removed": self.removed,
                "note": self.note}


def annotations_of(source: str | None) -> Counter:
    """The type annotations of a module (arguments, returns, annotated assignments), as source text."""
    if not source:
        return Counter()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return Counter()
    found: Counter = Counter()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scope = node.name
            arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
            arguments += [a for a in (node.args.vararg, node.args.kwarg) if a]
            found.update(f"{scope}({a.arg}: {ast.unparse(a.annotation)})" for a in arguments if a.annotation)
            if node.returns is not None:
                found[f"{scope} -> {ast.unparse(node.returns)}"] += 1
            typing_only = [ast.unparse(d) for d in node.decorator_list
                           if ast.unparse(d).split(".")[-1] in ("overload", "override")]
            found.update(f"{scope}: @{name}" for name in typing_only)
            if typing_only:  # an overload's whole signature is typing (its defaults are `...`)
                found[f"{scope}: overload({ast.unparse(node.args)})"] += 1
        elif isinstance(node, ast.AnnAssign):
            found[f"{ast.unparse(node.target)}: {ast.unparse(node.annotation)}"] += 1
    return found


def type_check_files(context: ReviewContext, root: Path) -> list[str]:
    """The files to check when the change edits annotations or a type test (else []): the changed modules,
    the changed test files and the project's type tests (test files in ``typing/``, ``mypy_test_cases/``
    ... or that ``assert_type`` / ``reveal_type``)."""
    changed = [f.path for f in context.files if f.path.endswith((".py", ".pyi"))
               and f.change_type not in ("binary", "deleted")]
    edits_types = any(
        annotations_of(read_old_text(context, f)) != annotations_of(read_new_text(context, f.path))
        for f in context.files if f.path in changed and not is_test_path(f.path))
    if not (edits_types or any(is_test_path(p) and _is_type_test(root / p, p) for p in changed)):
        return []  # the common case: no listing of the project's files
    type_tests = [p for p in _tracked_python(context) if is_test_path(p) and _is_type_test(root / p, p)]
    return list(dict.fromkeys(changed + type_tests))[:MAX_FILES]


def _tracked_python(context: ReviewContext) -> list[str]:
    """The Python files git knows in the reviewed version (a checkout's .venv and build output are not)."""
    listing = (["ls-tree", "-r", "--name-only", context.head_rev] if context.head_rev else ["ls-files"])
    try:
        names = run_git(context.root, *listing, timeout=60).stdout.splitlines()
    except AcodeError:
        return []
    return sorted(n for n in names if n.endswith((".py", ".pyi")))


def _is_type_test(file: Path, path: str) -> bool:
    """A file that states types for the type checker: in a typing test folder, or asserting types."""
    if TYPE_TEST_PATH.search(path):
        return True
    try:
        return bool(_TYPE_ASSERTION.search(file.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def run_mypy(tree: Path, files: list[str], timeout: float, sandbox: Sandbox | None,
             writable: Path) -> tuple[Counter, str]:
    """(errors as "path: message [code]" counted, "" or why the check did not finish)."""
    present = [f for f in files if (tree / f).is_file()]
    if not present:
        return Counter(), ""
    argv = [sys.executable, "-m", "mypy", *MYPY_FLAGS, f"--cache-dir={writable / 'mypy-cache'}", *present]
    search = [str(p) for p in (tree / "src", tree) if p.is_dir()]
    env = {**os.environ, "MYPYPATH": os.pathsep.join(search), "PYTHONDONTWRITEBYTECODE": "1"}
    if sandbox is not None:
        argv, env = sandbox.wrap(argv, env, cwd=tree, writable=writable)
    try:
        done = subprocess.run(with_default_signals(argv), cwd=tree, stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=timeout, env=env, check=False,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        return Counter(), f"mypy did not finish in {timeout:g} s"
    if done.returncode not in (0, 1):
        return Counter(), f"mypy could not check the files (exit {done.returncode})"
    errors: Counter = Counter()
    for line in done.stdout.splitlines():
        match = _ERROR.match(line.strip())
        if match:
            code = f" [{match['code']}]" if match["code"] else ""
            errors[f"{match['path']}: {match['message']}{code}"] += 1
    return errors, ""


def contrast_types(files: list[str], head: Path, base: Path, *, timeout: float, sandbox: Sandbox | None,
                   writable: Path) -> TypeContrast:
    """mypy on the same files in both trees; what the change introduces and what it removes."""
    result = TypeContrast(files=files)
    after, result.note = run_mypy(head, files, timeout, sandbox, writable)
    if result.note:  # nothing to compare the base with
        return result
    before, result.note = run_mypy(base, files, timeout, sandbox, writable)
    if result.note:
        return result
    result.introduced = sorted((after - before).elements())
    result.removed = sorted((before - after).elements())
    return result
