"""Behavioural evidence the change under review makes unavailable. The runner imports the base's module
first; when that imports and the change's version does not (it raises, hangs or ends the runner, perhaps
only because it sees the runner), the function cannot be compared, and that is the change's doing: a
finding, not an absence (``findings``). A review must not approve on less evidence than it would
have had without it.

One case stays the environment's: a package the change newly imports at the top of a module
(unconditionally) that is not part of the project and not installed where the review runs. The project's
tests, run where its dependencies are, judge that; the function is listed as not run, with the reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from acode.review.change.git_context import read_new_text
from acode.review.evidence.behaviour.child import IMPORT_STOPPED
from acode.review.models import ReviewContext

IMPORT_FAILED = "with the change: the module does not import"
_MISSING = re.compile(r"ModuleNotFoundError: No module named '(?P<name>[\w.]+)'")


def withheld_by_change(why: str, context: ReviewContext, base: Path) -> tuple[bool, str]:
    """(whether the change withheld the evidence, the reason to show) for a function not run for ``why``."""
    if not why.startswith((IMPORT_FAILED, IMPORT_STOPPED)):
        return False, why
    missing = _MISSING.search(why)
    if missing:
        top = missing.group("name").split(".")[0]
        if top in _new_top_level_imports(context) and not _in_project(base, top):
            return False, why + ("; a package the change imports that is not installed where the review "
                                 "runs: not held against it")
    return True, why


def _new_top_level_imports(context: ReviewContext) -> set[str]:
    """The top-level packages the changed Python files import unconditionally, at module level."""
    names: set[str] = set()
    for changed in context.files:
        if not changed.path.endswith(".py") or changed.change_type in ("deleted", "binary"):
            continue
        try:
            tree = ast.parse(read_new_text(context, changed.path) or "")
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.split(".")[0])
    return names


def _in_project(tree: Path, name: str) -> bool:
    return any((root / name).is_dir() or (root / f"{name}.py").is_file() for root in (tree, tree / "src"))
