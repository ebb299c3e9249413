"""The regression check reads the definitions the changed lines use before both versions, so a fix that
calls a helper defined further down is not "new" to the model; a definition the change alters is never
shown (it would give one side of the change to both)."""

from __future__ import annotations

from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import RegressionSettings
from acode.review.change.git_context import branch_context
from acode.review.change.preamble import definitions, names_in, preamble
from acode.review.judging.regression import _regions

OLD = '''import os
from pathlib import Path


def load(name):
    """Read a config file."""
    path = Path(name)
    return path.read_text()


def _expand(name: str) -> str:
    """Expand ~ and variables."""
    return os.path.expandvars(os.path.expanduser(name))
'''
NEW = OLD.replace("    path = Path(name)\n", "    path = Path(_expand(name))\n")


def test_names_and_definitions():
    assert names_in("path = Path(_expand(name))") == ["path", "Path", "_expand", "name"]
    table = definitions(OLD)
    assert table["_expand"] == 'def _expand(name: str) -> str:\n    """Expand ~ and variables."""\n    ...'
    assert table["Path"] == "from pathlib import Path"


def test_the_helper_further_down_is_shown_before_both_versions():
    prefix = 'def load(name):\n    """Read a config file."""\n'
    text = preamble(prefix, "    path = Path(name)\n    path = Path(_expand(name))", NEW, OLD)
    assert text.startswith("# Defined elsewhere in this file")
    assert "def _expand(name: str) -> str:" in text and "from pathlib import Path" in text
    assert preamble(prefix + "from pathlib import Path\ndef _expand(): ...\n", "Path(_expand(name))", NEW, OLD) == ""


def test_a_definition_the_change_alters_is_not_shown():
    changed_old = OLD.replace("def _expand(name: str) -> str:", "def _expand(name):")
    assert "_expand" not in preamble("def load(name):\n", "Path(_expand(name))", NEW, changed_old)
    # nor a function the changed lines define themselves
    assert preamble("", "def _expand(name):\n    return name", NEW, OLD) == ""


def test_regions_carry_the_preamble_unless_turned_off(tmp_path):
    context = branch_context(repo_with_branch(tmp_path / "r", {"conf.py": OLD}, {"conf.py": NEW}))
    [region], _, _ = _regions(context, RegressionSettings(), None)
    assert region.prefix.startswith("# Defined elsewhere") and "def _expand" in region.prefix
    [plain], _, _ = _regions(context, RegressionSettings(preamble=False), None)
    assert not plain.prefix.startswith("#")
