"""Which files are tests, for the review (what a change touches, which tests relate to it) and for
`acode run`'s verifier (does the project have pytest tests to run). The fixer keeps its own, Python-only
reading (``agent.fixing.detect.is_test_file``: conftest.py and ``*_tests.py`` too)."""

from __future__ import annotations

import re
from pathlib import PurePath

_TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_[^/]+$|_test\.\w+$|\.(test|spec)\.\w+$")


def is_test_path(path: str) -> bool:
    """A test file (by the common layouts of Python, JavaScript, Go, Rust... projects)."""
    return bool(_TEST_PATH.search(path))


def is_pytest_module(path: str) -> bool:
    """A Python test file pytest collects by its default names (``test_*.py``, ``*_test.py``)."""
    name = PurePath(path).name
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))
