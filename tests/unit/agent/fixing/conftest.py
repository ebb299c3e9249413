"""The fixer's smallest project as a fixture (its files and helpers: tests/helpers/fixing_calc.py), and the
fixing tests' record when FIXING_RECORD_FILE names a file (tests/helpers/fixing_record.py: run the fixing
tests with it before and after a refactoring and compare the two files)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, TESTS
from tests.helpers.fixing_record import FixingRecord

RECORD_FILE = os.environ.get("FIXING_RECORD_FILE")


@pytest.fixture
def project(git_repo: Path) -> Path:
    (git_repo / "calc.py").write_text(BUGGY)
    (git_repo / "test_calc.py").write_text(TESTS)
    return git_repo


@pytest.fixture(autouse=True)
def _fixing_record(request, monkeypatch):
    if not RECORD_FILE or not request.module.__name__.rpartition(".")[2].startswith("test_fixing"):
        yield
        return
    record = FixingRecord(request.getfixturevalue("tmp_path"))
    record.install(monkeypatch)
    yield
    if record.events:
        with open(RECORD_FILE, "a", encoding="utf-8") as out:
            out.write(json.dumps({"test": request.node.nodeid, "record": json.loads(record.text())}) + "\n")
