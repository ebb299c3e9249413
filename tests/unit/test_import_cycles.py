"""No import cycle among acode's modules: every module-level import (those under ``if TYPE_CHECKING:``
too) points one way, and so does every import inside a function (they run late on purpose, for a light
``acode --help``, but a cycle through them is still two modules that need each other)."""

from __future__ import annotations

import ast
from pathlib import Path

import acode

PACKAGE_ROOT = Path(acode.__file__).parent


def module_files() -> dict[str, Path]:
    found = {}
    for path in PACKAGE_ROOT.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE_ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def top_level_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The module's statements, with those inside top-level ``if`` / ``try`` blocks."""
    out: list[ast.stmt] = []
    for node in body:
        out.append(node)
        if isinstance(node, ast.If):
            out += top_level_statements(node.body) + top_level_statements(node.orelse)
        elif isinstance(node, ast.Try):
            out += top_level_statements(node.body) + [s for h in node.handlers for s in h.body]
    return out


def imported_modules(name: str, path: Path, modules: dict[str, Path], *, everywhere: bool = False
                     ) -> set[str]:
    """The acode modules ``name`` imports at module level (``everywhere``: inside functions too)."""

    def known(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    targets: set[str | None] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree) if everywhere else top_level_statements(tree.body):
        if isinstance(node, ast.Import):
            targets.update(known(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = (
                ".".join([*package[: len(package) - node.level + 1], node.module or ""]).strip(".")
                if node.level
                else node.module or ""
            )
            targets.update(
                known(f"{base}.{a.name}") if f"{base}.{a.name}" in modules else known(base)
                for a in node.names
            )
    return {t for t in targets if t and t != name and t.startswith("acode")}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path of module names (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_the_finder_sees_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_sees_relative_and_type_checking_imports():
    modules = module_files()
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert "acode.agent.loop.middleware" in graph["acode.agent.loop.agent_loop"]
    assert "acode.pipeline.stages" in graph["acode.pipeline.human"]  # under TYPE_CHECKING


def test_acode_has_no_import_cycle():
    modules = module_files()
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


# The stages a review goes through, in order. A review module imports its own stage or an earlier one, never
# a later one (module-level and function-level imports alike), so the data flows one way: the change ->
# evidence about it -> the model's judgement -> the decision (from what was judged: deciding asks no model)
# -> the run that drives both in order -> its report; ``service`` at the top runs them.
REVIEW_STAGES = (
    ("acode.review", "acode.review.models"),
    ("acode.review.change",),
    ("acode.review.evidence",),
    ("acode.review.judging",),
    ("acode.review.deciding",),
    ("acode.review.running",),  # the run and the strategies: the judging steps in order, then deciding
    ("acode.review.reporting",),
    ("acode.review.service",),
    ("acode.review.describing",),  # a description: a checks-only review through the service, then a summary
    ("acode.review.fixing",),  # `review --fix`: a review's safe fixes written into the working tree
)


def review_stage(module: str) -> int | None:
    """The stage index of a review module (the longest matching name wins), None outside the review."""
    best: tuple[int, int] | None = None
    for index, names in enumerate(REVIEW_STAGES):
        for name in names:
            if (module == name or module.startswith(name + ".")) and (best is None or len(name) > best[0]):
                best = (len(name), index)
    return None if best is None else best[1]


def all_imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Every acode module ``path`` imports, at module level or inside functions."""
    return imported_modules(name, path, modules, everywhere=True)


def test_every_review_module_has_a_stage():
    modules = module_files()
    review = [name for name in modules if name.startswith("acode.review")]
    assert len(review) > 30
    assert [name for name in review if review_stage(name) is None] == []
    assert review_stage("acode.review.judging.regression") == 3
    assert review_stage("acode.review.models") == 0
    cli = "acode.cli.review"  # imports the service inside a function only
    assert "acode.review.service" in all_imports(cli, modules[cli], modules)
    assert "acode.review.service" not in imported_modules(cli, modules[cli], modules)


def test_no_review_module_imports_a_later_stage():
    modules = module_files()
    backwards = []
    for name, path in sorted(modules.items()):
        stage = review_stage(name)
        if stage is None:
            continue
        for target in sorted(all_imports(name, path, modules)):
            later = review_stage(target)
            if later is not None and later > stage:
                backwards.append(f"{name} -> {target}")
    assert backwards == []


def test_acode_has_no_import_cycle_through_imports_inside_functions_either():
    # a late import keeps ``acode --help`` light, but two modules that each reach for the other (even
    # from inside a function) are one piece of code split in two: the data goes back and forth
    modules = module_files()
    graph = {name: imported_modules(name, path, modules, everywhere=True) for name, path in modules.items()}
    assert "acode.config" in graph["acode.cli.common"]  # settings_for imports load_settings when called
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])
