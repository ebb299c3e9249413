"""The project around a change: which functions it changes, where the project calls them, and which
test files exercise them. Cheap and deterministic (the new files' syntax trees and `git grep`); the
callers go into the reviewer's context, the test files make the test command of `--run-tests` run the
tests that matter for the change instead of the whole suite."""

from __future__ import annotations

import ast
import re
import shlex
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from acode.errors import AcodeError
from acode.gitcmd import run_git
from acode.review.change.diff import changed_new_lines
from acode.review.change.git_context import read_new_text
from acode.review.models import ReviewContext
from acode.test_files import is_test_path

DEFAULT_TEST_COMMAND = "python -m pytest -q"
MIN_NAME = 4  # shorter names (run, get, ...) match too much of a project to say anything
GREP_BATCH = 400  # words per `git grep` (its command line stays well under the system's limit)
# At most this many names are looked for: each costs a pass over the project's files, and a handful of
# callers and test files is what is kept (a change to 20,000 modules is not 20,000 passes).
MAX_NAMES = GREP_BATCH
_GENERIC = {"main", "__init__", "setUp", "tearDown", "test", "wrapper", "inner", "decorator"}


@dataclass
class Around:
    functions: dict[str, list[str]] = field(default_factory=dict)  # path -> changed function names
    callers: list[str] = field(default_factory=list)  # "path:line: code" outside the changed files
    tests: list[str] = field(default_factory=list)  # changed test files, then those naming a changed name

    def text(self) -> str:
        return "\n".join(f"- {line}" for line in self.callers)


def changed_functions(path: str, source: str, lines: set[int]) -> list[str]:
    """Names of the functions and classes (innermost) whose body holds a changed line."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            span = set(range(node.lineno, (node.end_lineno or node.lineno) + 1))
            inner = [c for c in ast.walk(node) if c is not node and isinstance(
                c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and lines & set(
                range(c.lineno, (c.end_lineno or c.lineno) + 1))]
            if lines & span and not inner and node.name not in names:
                names.append(node.name)
    return names


def surroundings_of(context: ReviewContext, *, max_callers: int = 6, per_name: int = 2,
                    max_tests: int = 8) -> Around:
    around = Around()
    changed_paths = {f.path for f in context.files}
    modules: list[str] = []
    for changed in context.files:
        if (not changed.path.endswith(".py") or changed.change_type in ("deleted", "binary")
                or is_test_path(changed.path)):
            continue
        source = read_new_text(context, changed.path)
        if source is None:
            continue
        names = changed_functions(changed.path, source, set(changed_new_lines(changed.diff)))
        if names:
            around.functions[changed.path] = names
        stem = PurePosixPath(changed.path).stem
        modules.append(PurePosixPath(changed.path).parent.name if stem == "__init__" else stem)
    names = [n for ns in around.functions.values() for n in ns if telling_name(n)]
    for name, hits in grep_words(context, list(dict.fromkeys(names))[:MAX_NAMES], calls=True).items():
        outside = [h for h in hits if h.split(":", 1)[0] not in changed_paths and not _defines(h, name)
                   and not h.split(":", 2)[-1].lstrip().startswith(("#", '"', "'"))]
        for hit in [h for h in outside if not is_test_path(h.split(":", 1)[0])][:per_name]:
            if len(around.callers) < max_callers and hit[:140] not in around.callers:
                around.callers.append(hit[:140])
    changed_tests = [f.path for f in context.files if f.change_type != "deleted" and _test_module(f.path)
                     and f.path.endswith(".py")]
    found = _tests_naming(context, names, modules, max_tests)
    around.tests = list(dict.fromkeys(changed_tests + found))[:max(max_tests, len(changed_tests))]
    return around


def _defines(hit: str, name: str) -> bool:
    code = hit.split(":", 2)[-1].strip()
    return code.startswith((f"def {name}", f"async def {name}", f"class {name}"))


def _test_module(path: str) -> bool:
    """A test file pytest collects by its name (test_*.py), in a test location."""
    return is_test_path(path) and PurePosixPath(path).name.startswith("test")


def telling_name(name: str) -> bool:
    """A name specific enough to look for in the project (not short, generic or a dunder)."""
    return len(name) >= MIN_NAME and name not in _GENERIC and not name.startswith("__")


def grep_python(context: ReviewContext, word: str, *, calls: bool = False) -> list[str]:
    """`git grep` of ``word`` (a whole word; with ``calls``, only where it is called) in the Python files
    of the reviewed version."""
    return grep_words(context, [word], calls=calls)[word]


def grep_words(context: ReviewContext, words: list[str], *, calls: bool = False,
               where: str = "*.py") -> dict[str, list[str]]:
    """``grep_python`` for many words with one `git grep` per GREP_BATCH of them (a change to 20,000
    files is not 20,000 processes): word -> its "path:line:code" hits."""
    found: dict[str, list[str]] = {word: [] for word in words}
    unique = list(found)
    for start in range(0, len(unique), GREP_BATCH):
        batch = unique[start:start + GREP_BATCH]
        patterns = [part for word in batch
                    for part in ("-e", rf"(^|[^A-Za-z0-9_]){word}\(" if calls else word)]
        lines = _grep(context, ["-E", *patterns] if calls else ["-w", *patterns], where)
        which = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, batch)) + r")"
                           + (r"\(" if calls else r"(?![A-Za-z0-9_])"))
        for line in lines:
            code = line.split(":", 2)[-1]
            for word in dict.fromkeys(m.group(1) for m in which.finditer(code)):
                found[word].append(line)
    return found


def _grep(context: ReviewContext, pattern: list[str], where: str) -> list[str]:
    rev = [context.head_rev] if context.head_rev else []
    try:
        # --text: git's own binary test trusts .gitattributes, which the change can set (``*.py -diff``)
        done = run_git(context.root, "grep", "-n", "--text", "--full-name", *pattern, *rev, "--", where,
                       check=False)
    except AcodeError:  # git missing or too slow: no callers, the review goes on
        return []
    lines = [line for line in (done.stdout or "").splitlines() if "\0" not in line]
    if rev:  # "REV:path:line:code" -> "path:line:code"
        lines = [line.split(":", 1)[1] for line in lines if ":" in line]
    return lines


def _tests_naming(context: ReviewContext, names: list[str], modules: list[str], limit: int) -> list[str]:
    """Test files that name a changed function, else the changed module; most names first."""
    score: dict[str, int] = {}
    words = list(dict.fromkeys(names + [m for m in modules if len(m) >= MIN_NAME]))[:MAX_NAMES]
    for word, hits in grep_words(context, words, where=":(glob)**/test*.py").items():
        for path in {h.split(":", 1)[0] for h in hits}:
            if _test_module(path):
                score[path] = score.get(path, 0) + (2 if word in names else 1)
    return sorted(score, key=lambda p: (-score[p], p))[:limit]


def related_test_command(tests: list[str], command: str | None = None) -> str:
    """The command that runs ``tests``: the project's own ``command`` as it is (the whole suite), or with
    ``{tests}`` replaced by the test files; without a command, pytest on the test files. With no test file
    found, the whole suite (``{tests}`` left empty)."""
    files = " ".join(shlex.quote(t) for t in tests)
    if command is None:
        return f"{DEFAULT_TEST_COMMAND} {files}".rstrip()
    return command.replace("{tests}", files).rstrip() if "{tests}" in command else command
