"""Deciding whether a request is a test-driven change, which command runs the tests, and which files
the change may touch. Plain text rules: they must hold for any project, not one benchmark."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

# Words that make a request a change to make (not a question to answer).
_CHANGE_WORDS = re.compile(
    r"\b(fix|fixes|fixed|repair|bug|bugs|buggy|broken|fail|fails|failing|failure|error|crash|crashes|"
    r"make\s+(?:the\s+)?tests?\s+pass|implement|correct)\b",
    re.IGNORECASE,
)
_TEST_RUNNERS = (
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "python -m unittest",
    "python3 -m unittest",
    "tox",
    "nox",
    "make test",
    "npm test",
    "go test",
    "cargo test",
)
# a project environment's interpreter named by its path: .venv/bin/python, /opt/env/bin/python3.11
_PYTHON_BY_PATH = re.compile(r"^(?:\S*/)?python(?:3(?:\.\d+)?)?(?= -m (?:pytest|unittest)\b)")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_AFTER_WITH = re.compile(r"\bwith:?\s+([^\n()]+?)\s*(?:\)|$|\.\s|\.$)", re.IGNORECASE | re.MULTILINE)
_PATH_LIKE = re.compile(r"(?<![\w@/.-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z0-9]{1,6})(?![\w/])")
# a pytest node id: tests/test_x.py::TestC::test_m[param]
_NODE_ID = re.compile(r"(?<![\w@/.-])((?:[\w.-]+/)*[\w.-]+\.py)((?:::\w+)+(?:\[[^\]\s]*\])?)")
_K_EXPR = re.compile(r"(?<![\w-])-k\s*(?:\"([^\"\n]+)\"|'([^'\n]+)'|([^\s`'\"]+))")
SOURCE_SUFFIXES = {".py"}  # languages whose candidates the fixer can syntax-check and splice


@dataclass
class FixPlan:
    test_command: str
    targets: list[Path]  # workspace-relative files the change may rewrite
    protected: list[Path] = field(default_factory=list)  # named test files: the specification, never edited
    tests: list[str] = field(default_factory=list)  # the named node ids (tests/test_x.py::test_y) and files


def is_test_file(path: Path) -> bool:
    name = path.name
    return (
        name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name == "conftest.py"
        or any(part in ("tests", "test") for part in path.parts[:-1])
    )


def asks_for_change(request: str) -> bool:
    return bool(_CHANGE_WORDS.search(request))


def _is_test_command(text: str) -> bool:
    text = _PYTHON_BY_PATH.sub("python", text.strip())
    return any(text == runner or text.startswith(runner + " ") for runner in _TEST_RUNNERS)


def command_in_request(request: str) -> str | None:
    """A test command the request spells out: `python -m pytest -q`, or '(run them with: pytest -x)'."""
    for pattern in (_BACKTICKED, _AFTER_WITH):
        for match in pattern.finditer(request):
            candidate = match.group(1).strip().rstrip(".;,")
            if _is_test_command(candidate):
                try:
                    shlex.split(candidate)
                except ValueError:
                    continue
                return candidate
    return None


def discover_test_command(workspace: Path) -> str | None:
    """pytest when the project has Python tests (it also runs unittest-style tests)."""
    for pattern in ("test_*.py", "*_test.py", "tests/**/*.py"):
        for path in workspace.glob(pattern):
            if ".acode" not in path.parts and ".venv" not in path.parts:
                return "python -m pytest -q"
    return None


def named_files(request: str, workspace: Path) -> list[Path]:
    """Existing files the request names, in order, relative to the workspace. A bare file name that is
    not at the root stands for the one project file of that name (``parser.py`` -> ``src/pkg/parser.py``)."""
    found: list[Path] = []
    for match in _PATH_LIKE.finditer(request):
        rel = _project_file(match.group(1), workspace.resolve())
        if rel is not None and rel not in found:
            found.append(rel)
    return found


def _project_file(name: str, root: Path) -> Path | None:
    candidate = (root / name).resolve()
    if not candidate.is_file() and "/" not in name:
        same_name = _project_files(root, name)
        candidate = same_name[0] if len(same_name) == 1 else candidate
    if candidate.is_file() and candidate.is_relative_to(root):
        rel = candidate.relative_to(root)
        if not any(part.startswith(".") for part in rel.parts[:-1]):
            return rel
    return None


def named_tests(request: str, workspace: Path) -> list[str]:
    """The tests the request names, as pytest takes them: node ids (``test_x.py::TestC::test_m``) and
    test files, each file as its workspace-relative path (a bare name found in the project)."""
    root = workspace.resolve()
    tests: list[str] = []
    for match in _NODE_ID.finditer(request):
        rel = _project_file(match.group(1), root)
        if rel is not None and is_test_file(rel):
            tests.append(rel.as_posix() + match.group(2))
    covered = {t.split("::")[0] for t in tests}
    for rel in named_files(request, workspace):
        runnable = is_test_file(rel) and rel.suffix == ".py" and rel.name != "conftest.py"
        if runnable and rel.as_posix() not in covered:
            tests.append(rel.as_posix())
    return list(dict.fromkeys(tests))


def keyword_expression(request: str) -> str | None:
    """The ``-k`` expression the request gives pytest, if any."""
    match = _K_EXPR.search(request)
    return next((g for g in match.groups() if g), None) if match else None


def named_tests_command(tests: list[str], keyword: str | None) -> str | None:
    """pytest on only the named tests (a real project's whole suite is minutes, and other failures)."""
    if not tests and not keyword:
        return None
    selection = ["-k", shlex.quote(keyword)] if keyword else []
    return " ".join(["python -m pytest -q", *map(shlex.quote, tests), *selection])


def _project_files(root: Path, name: str, limit: int = 5000) -> list[Path]:
    """Files called ``name`` anywhere in the project, hidden folders and virtualenvs left out."""
    matches = []
    for index, path in enumerate(root.rglob(name)):
        if index > limit:
            break
        rel = path.relative_to(root)
        if path.is_file() and not any(
            p.startswith(".") or p in ("node_modules", "venv", "__pycache__") for p in rel.parts[:-1]
        ):
            matches.append(path.resolve())
    return matches


def plan_fix(request: str, workspace: Path, *, configured_command: str | None = None) -> FixPlan | None:
    """A plan when the request asks for a change that tests can judge; None otherwise."""
    if not asks_for_change(request):
        return None
    tests = named_tests(request, workspace)
    command = (
        configured_command
        or command_in_request(request)
        or named_tests_command(tests, keyword_expression(request))
        or discover_test_command(workspace)
    )
    if not command:
        return None
    named = named_files(request, workspace)
    targets = [p for p in named if not is_test_file(p) and p.suffix in SOURCE_SUFFIXES]
    protected = [p for p in named if is_test_file(p)]
    return FixPlan(test_command=command, targets=targets, protected=protected, tests=tests)
