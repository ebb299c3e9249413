"""The project's own tests of the changed code, as the statement of what it must do.

The regression check asks which of two versions of a region the model finds more right. Without more
than the code around it, a small model prefers what is familiar: the simpler line, the version it has
seen more often — on real fixes, often the buggy one. A project's tests say what the code must do, in
the project's own words: the test functions of the reviewed version that call a changed function are
put before both versions (the same text for both), so the contrast reads each version against them.

Which tests: those of the reviewed version that name a function or class around the changed lines,
the ones the change itself adds or edits first, then those sharing the most names and literals with
the changed lines (old and new alike, so the choice does not favour either version).
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass

from acode.review.change.diff import changed_new_lines
from acode.review.change.git_context import read_new_text
from acode.review.change.surroundings import grep_python, telling_name
from acode.review.models import ReviewContext
from acode.test_files import is_test_path

MAX_TESTS = 3
MAX_CHARS = 1500
MAX_TEST_LINES = 30
MAX_FILES = 12


@dataclass(frozen=True)
class ProjectTest:
    path: str
    name: str
    text: str  # the test function's source, dedented
    changed: bool  # the change under review adds or edits it
    tokens: frozenset[str]  # its names, strings and numbers


class ProjectTests:
    """The test functions of the reviewed version, found once per review and picked per region."""

    def __init__(self, context: ReviewContext) -> None:
        self._context = context
        self._by_name: dict[str, list[ProjectTest]] = {}
        self._by_path: dict[str, list[ProjectTest]] = {}

    def for_region(self, names: list[str], changed_code: str, mark: str = "#") -> str:
        """A comment-headed block of the tests that name one of ``names`` (the definitions around a
        changed region, innermost first), most relevant first; '' when the project has none."""
        wanted = [n for n in dict.fromkeys(names) if telling_name(n)]
        if not wanted:
            return ""
        changed = _tokens(changed_code) - set(wanted)
        found: dict[tuple[str, str], tuple[int, ProjectTest]] = {}
        for rank, name in enumerate(wanted):
            for test in self._naming(name):
                weight = len(test.tokens & changed) + (len(wanted) - rank)
                key = (test.path, test.name)
                if key not in found or found[key][0] < weight:
                    found[key] = (weight, test)
        ordered = sorted(found.values(), key=lambda item: (not item[1].changed, -item[0], len(item[1].text)))
        return block([test for _, test in ordered], mark)

    def _naming(self, name: str) -> list[ProjectTest]:
        if name not in self._by_name:
            self._by_name[name] = [t for path in _test_files_naming(self._context, name)
                                   for t in self._in_file(path) if _names(t.text, name)]
        return self._by_name[name]

    def _in_file(self, path: str) -> list[ProjectTest]:
        if path not in self._by_path:
            self._by_path[path] = _test_functions(self._context, path)
        return self._by_path[path]


def block(tests: list[ProjectTest], mark: str = "#", *, max_tests: int = MAX_TESTS,
          max_chars: int = MAX_CHARS) -> str:
    chosen, size = [], 0
    for test in tests[:max_tests]:
        if chosen and size + len(test.text) > max_chars:
            break
        text = test.text if len(test.text) <= max_chars else test.text[:max_chars].rsplit("\n", 1)[0]
        chosen.append(f"{mark} from {test.path}\n{text}")
        size += len(text)
    if not chosen:
        return ""
    return (f"{mark} The project's tests of the code below (they state what it must do):\n"
            + "\n\n".join(chosen) + "\n\n")


def around_names(source: str, lines: set[int]) -> list[str]:
    """The functions and classes whose span holds one of ``lines`` (1-based), innermost first."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    spans = [(node.lineno, node.end_lineno or node.lineno, node.name) for node in ast.walk(tree)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    hits = [(first, name) for first, last, name in spans if any(first <= n <= last for n in lines)]
    return [name for _, name in sorted(hits, reverse=True)]


def _names(text: str, name: str) -> bool:
    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _tokens(code: str) -> set[str]:
    out: set[str] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type in (tokenize.NAME, tokenize.STRING, tokenize.NUMBER) and len(token.string) > 1:
                out.add(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return out


def _test_files_naming(context: ReviewContext, name: str) -> list[str]:
    paths = dict.fromkeys(hit.split(":", 1)[0] for hit in grep_python(context, name))
    return [p for p in paths if is_test_path(p)][:MAX_FILES]


def _test_functions(context: ReviewContext, path: str) -> list[ProjectTest]:
    source = read_new_text(context, path)
    if source is None:
        return []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    changed = next((set(changed_new_lines(f.diff)) for f in context.files if f.path == path), set())
    lines = source.splitlines()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            first, last = node.lineno, node.end_lineno or node.lineno
            body = lines[first - 1 : min(last, first + MAX_TEST_LINES - 1)]
            text = textwrap.dedent("\n".join(body))
            out.append(ProjectTest(path=path, name=node.name, text=text,
                                   changed=any(first <= n <= last for n in changed),
                                   tokens=frozenset(_tokens(text))))
    return out
