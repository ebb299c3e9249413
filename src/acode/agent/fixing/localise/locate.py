"""Finding the module a failing test points at in a project of many modules: the traceback's frames, and
the names the failing test functions use, followed from the test's imports to the file that defines
them (``from pkg import parse`` -> ``src/pkg/cli.py`` when ``pkg/__init__.py`` re-exports it with
``from .cli import parse``). Each file comes with its focus: the definitions the failing tests reach,
which is all a long file's prompt shows (excerpt.py)."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from acode.agent.fixing.detect import is_test_file
from acode.agent.fixing.file_view import read_text
from acode.agent.fixing.outcome import failing_ids, traceback_frames

_REEXPORT_DEPTH = 3
Reference = tuple[Path, str | None]  # a file, and the top-level name used there (None: the module)
Imported = tuple[str, str | None]  # a module, and the name imported from it (None: the module itself)


@dataclass
class Focus:
    """What a failing test reaches in one file: top-level names it uses, lines its traceback goes through,
    and the attribute names it uses (``Parser().parse(...)``: the methods of a long class to show)."""

    names: set[str] = field(default_factory=set)
    lines: set[int] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)


@dataclass
class Located:
    path: Path
    focus: Focus
    in_traceback: bool = False
    referenced: bool = False  # a name the failing tests use is defined here
    on_failing_line: bool = False  # ... used in the test's statement that failed (its traceback line)


def failing_tests(output: str, named: list[str]) -> dict[Path, set[str]]:
    """{test file: names of its failing test functions} from pytest's FAILED/ERROR lines and the node
    ids the request named; an empty set means the whole file."""
    found: dict[Path, set[str]] = {}
    ids = [i for i in failing_ids(output) if i.split("::")[0].endswith(".py")] + named
    for node_id in ids:
        path, *parts = node_id.split("::")
        names = found.setdefault(Path(path), set())
        names.update(p.split("[")[0] for p in parts)
    return found


def locate(output: str, tests: dict[Path, set[str]], workspace: Path) -> list[Located]:
    """Source files (no tests), best first: those both in the traceback and defining a name the failing
    tests use, then the rest of the traceback (the frame that raised first), then those defining a name
    the test's failing statement uses (not what it only sets up or patches), then the other files whose
    names the tests use."""
    by_path: dict[Path, Located] = {}

    def entry(path: Path) -> Located:
        return by_path.setdefault(path, Located(path, Focus()))

    all_frames = traceback_frames(output, workspace)
    frames = [(p, line) for p, line in all_frames if not is_test_file(p)]
    for path, line in reversed(frames):
        found = entry(path)
        found.in_traceback = True
        found.focus.lines.add(line)
    for test, functions in tests.items():
        failing_lines = {line for path, line in all_frames if path == test}
        references, attributes, on_failing_line = _referenced(workspace, test, functions, failing_lines)
        for path, name in references:
            if is_test_file(path):
                continue
            found = entry(path)
            found.referenced = True
            found.on_failing_line |= (path, name) in on_failing_line
            found.focus.attributes |= attributes
            if name:
                found.focus.names.add(name)
    ranked = list(by_path.values())
    ranked.sort(key=lambda f: (not (f.in_traceback and f.referenced), not f.in_traceback,
                               not f.on_failing_line))
    return [f for f in ranked if f.path.suffix == ".py"]


def _referenced(
    workspace: Path, test: Path, functions: set[str], failing_lines: set[int]
) -> tuple[list[Reference], set[str], list[Reference]]:
    """(file, top-level name or None for the module as a whole) for each imported name the failing test
    functions of ``test`` use (all of the file's imports when no function is named or found, or when the
    functions use no imported name: a fixture builds what they test); the attribute names they use; and
    the references of the statements at ``failing_lines`` (the test's own traceback lines)."""
    try:
        tree = ast.parse(read_text(workspace / test))
    except (SyntaxError, ValueError):
        return [], set(), []
    imports = _imports(tree)
    bodies = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
              and n.name in functions]
    attributes = {n.attr for body in bodies for n in ast.walk(body) if isinstance(n, ast.Attribute)}
    attributes |= {method for body in bodies for method in _dunders(body)}
    everything = [[local] for local in imports]
    used = _resolved(workspace, imports, _used_chains(bodies)) or _resolved(workspace, imports, everything)
    failing = [_innermost_statement(body, line) for body in bodies for line in failing_lines]
    on_failing_line = _resolved(workspace, imports, _used_chains([s for s in failing if s is not None]))
    return used, attributes, on_failing_line


# builtins whose call on an object runs one of its methods: `str(headers)` reaches `__str__`, which a long
# class's excerpt would otherwise leave out (the tests name no method)
_BUILTIN_DUNDERS = {"str": "__str__", "repr": "__repr__", "len": "__len__", "iter": "__iter__",
                    "bool": "__bool__", "hash": "__hash__", "format": "__format__"}


def _dunders(body: ast.AST) -> set[str]:
    """The special methods a test body reaches through builtins (``str(x)``) and ``in``."""
    found = {_BUILTIN_DUNDERS[n.func.id] for n in ast.walk(body) if isinstance(n, ast.Call)
             and isinstance(n.func, ast.Name) and n.func.id in _BUILTIN_DUNDERS}
    if any(isinstance(op, ast.In | ast.NotIn) for n in ast.walk(body) if isinstance(n, ast.Compare)
           for op in n.ops):
        found.add("__contains__")
    return found


def _innermost_statement(body: ast.AST, line: int) -> ast.stmt | None:
    """The smallest statement of ``body`` (not the function itself) that spans ``line``."""
    spanning = [n for n in ast.walk(body) if isinstance(n, ast.stmt) and n is not body
                and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return min(spanning, key=lambda n: (n.end_lineno or n.lineno) - n.lineno, default=None)


def _resolved(workspace: Path, imports: dict[str, Imported], used: list[list[str]]) -> list[Reference]:
    found: list[Reference] = []
    for chain in used:
        if chain[0] not in imports:
            continue
        module, attribute = imports[chain[0]]
        names = ([attribute] if attribute else []) + chain[1:]
        for result in _resolve(workspace, module.split("."), names, _REEXPORT_DEPTH):
            if result not in found:
                found.append(result)
    return found


def _imports(tree: ast.Module) -> dict[str, Imported]:
    """{local name: (module, imported attribute or None)} of a test file's absolute imports."""
    imports: dict[str, Imported] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = (alias.name, None)
                else:  # `import a.b` binds `a`; `a.b.f` is followed attribute by attribute
                    imports[alias.name.split(".")[0]] = (alias.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    imports[alias.asname or alias.name] = (node.module, alias.name)
    return imports


def _used_chains(bodies: Sequence[ast.AST]) -> list[list[str]]:
    """Dotted names the bodies use (``cli.parse_args`` -> ['cli', 'parse_args']), in order of use."""
    chains: list[list[str]] = []
    inner: set[int] = set()
    for body in bodies:
        for node in ast.walk(body):
            if id(node) in inner or not isinstance(node, ast.Attribute | ast.Name):
                continue
            chain: list[str] = []
            current: ast.expr = node
            while isinstance(current, ast.Attribute):
                chain.insert(0, current.attr)
                current = current.value
                inner.add(id(current))
            if isinstance(current, ast.Name):
                chain.insert(0, current.id)
                if chain not in chains:
                    chains.append(chain)
    return chains


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_MIN_WORD = 4
_NOT_PROJECT = {"node_modules", "venv", "site-packages", "__pycache__", "docs", "examples", "build", "dist"}


def _words(name: str) -> set[str]:
    """``test_session_vary`` -> {'session', 'vary'}; ``TestHTMLBlocks`` -> {'html', 'blocks'}."""
    return {w.lower() for w in _WORD.findall(name) if len(w) >= _MIN_WORD and w.lower() != "test"}


def _same_word(a: str, b: str) -> bool:
    """``session``/``sessions``, ``groups``/``grouping``, ``split``/``splitter``: a shared prefix of at
    least 4 letters that leaves at most 2 letters of the shorter word."""
    prefix = len(os.path.commonprefix([a, b]))
    return prefix >= _MIN_WORD and prefix >= min(len(a), len(b)) - 2


def named_by_tests(tests: dict[Path, set[str]], workspace: Path, limit: int = 5000) -> list[Path]:
    """Project modules named like the failing tests (``test_session_vary_cookie`` -> ``sessions.py``),
    most failing tests first: where a failure has no traceback into the project (an assertion in the
    test on what a fixture built) a reader looks for the module the test is about by its name."""
    words = test_words(tests)
    if not words:
        return []
    counts: dict[Path, int] = {}
    for index, path in enumerate(workspace.rglob("*.py")):
        if index > limit:
            break
        rel = path.relative_to(workspace)
        if is_test_file(rel) or rel.name in ("setup.py", "__init__.py") or any(
                part.startswith(".") or part in _NOT_PROJECT for part in rel.parts[:-1]):
            continue
        parts = _words(rel.stem)
        hits = sum(any(_same_word(w, p) for w in test for p in parts) for test in words)
        if hits:
            counts[rel] = hits
    return sorted(counts, key=lambda p: (-counts[p], len(p.as_posix()), p.as_posix()))


def test_words(tests: dict[Path, set[str]]) -> list[set[str]]:
    """The words of each failing test's name (``test_session_vary_cookie`` -> {session, vary, cookie})."""
    words = [_words(name) for names in tests.values() for name in names if name.startswith(("test", "Test"))]
    return [w for w in words if w]


def focus_named_like(text: str, words: list[set[str]]) -> Focus:
    """A file found by its name, with no traceback frame into it: its definitions named like the failing
    tests (top-level ones as names, methods as attributes with their class as a name), so a long file
    is shown as those, not whole (``test_session_vary_cookie`` -> ``save_session``, ``open_session``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return Focus()

    def like(name: str) -> bool:
        parts = _words(name)
        return any(_same_word(w, p) for test in words for w in test for p in parts)

    focus = Focus()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if like(node.name):
            focus.names.add(node.name)
        if isinstance(node, ast.ClassDef):
            methods = {m.name for m in node.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)
                       and like(m.name)}
            if methods:
                focus.names.add(node.name)
                focus.attributes |= methods
    return focus


def module_file(workspace: Path, parts: list[str]) -> Path | None:
    """The workspace file of a dotted module, at the root or under ``src/``."""
    for base in (Path(), Path("src")):
        for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
            if (workspace / candidate).is_file():
                return candidate
    return None


def _resolve(workspace: Path, module: list[str], names: list[str], depth: int) -> list[Reference]:
    """Where ``module.names[0].names[1]...`` is defined: submodules are walked into, a name a package
    only re-exports is followed to the module that defines it."""
    path = module_file(workspace, module)
    if path is None:
        return []
    if not names:
        return [(path, None)]
    submodule = module_file(workspace, [*module, names[0]])
    if submodule is not None and submodule != path:
        return _resolve(workspace, [*module, names[0]], names[1:], depth)
    if depth > 0:
        origin = _reexported_from(workspace, path, module, names[0])
        if origin is not None:
            return _resolve(workspace, origin[0], [origin[1], *names[1:]], depth - 1)
    return [(path, names[0])]


def _reexported_from(workspace: Path, path: Path, module: list[str],
                     name: str) -> tuple[list[str], str] | None:
    """(module, name there) that ``path`` imports ``name`` from, when it does not define it itself."""
    try:
        tree = ast.parse(read_text(workspace / path))
    except (SyntaxError, ValueError):
        return None
    package = module if path.name == "__init__.py" else module[:-1]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return None
        if not isinstance(node, ast.ImportFrom):
            continue
        for alias in node.names:
            if (alias.asname or alias.name) == name:
                base = package[: len(package) - node.level + 1] if node.level else []
                origin = [*base, *node.module.split(".")] if node.module else base
                return origin, alias.name
    return None
