"""The fixer's smallest project as a fixture (its files and helpers: tests/helpers/fixing_calc.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, TESTS


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo
