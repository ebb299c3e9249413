"""A test that reaches a method through a builtin and inheritance (``str(EnvironHeaders(...))`` runs
``Headers.__str__``, seen on werkzeug 3.1.0->3.1.1, a real fix of the tune half): the excerpt of a long
file shows the base class's method, so a one-line edit can name the wrong line. The scripted model and
the real tools on a real pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_project import fixed_by_a_line_edit, fixing_repo

from acode.agent.fixing.localise.excerpt import excerpt
from acode.agent.fixing.localise.locate import Focus, locate

# a long base class (over excerpt.CLASS_LINES) whose __str__ reads its own list, and a subclass that keeps
# its items elsewhere: str() of the subclass is empty
_GETTERS = "".join(f"    def get_{i}(self):\n        return {i}\n\n" for i in range(45))
HEADERS = f'''class Headers:
    """Headers in a list."""

    def __init__(self, items=()):
        self._list = list(items)

    def __iter__(self):
        return iter(self._list)

{_GETTERS}    def __str__(self):
        return "; ".join(f"{{k}}={{v}}" for k, v in self._list)


class EnvironHeaders(Headers):
    """Headers read from an environment."""

    def __init__(self, environ):
        super().__init__()
        self.environ = environ

    def __iter__(self):
        return iter(sorted(self.environ.items()))
'''
HEADERS_FIXED = HEADERS.replace('for k, v in self._list)', 'for k, v in self)')
FILLER = "".join(f'def helper_{i}(x):\n    """Helper {i}."""\n    return x + {i}\n\n\n' for i in range(140))
MODULE = '"""Headers."""\n\n\n' + FILLER + HEADERS  # over 400 lines: an excerpt
TEST = ("from tool.headers import EnvironHeaders\n\n\ndef test_str():\n"
        "    headers = EnvironHeaders({'A': '1'})\n    assert str(headers) == 'A=1'\n")
CONTAINS = ("from tool.headers import EnvironHeaders\n\n\ndef test_has():\n"
            "    assert 'A' in EnvironHeaders({'A': '1'})\n")
REQUEST = ("These tests fail: tests/test_headers.py::test_str. Fix the bug in the code (not the tests) so "
           "they pass (run them with: python -m pytest -q tests/test_headers.py::test_str)")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    files = {"src/tool/headers.py": MODULE, "tests/test_headers.py": TEST, "tests/test_contains.py": CONTAINS}
    return fixing_repo(tmp_path, monkeypatch, files)


def test_str_and_in_in_a_test_reach_the_special_methods(project):
    located = locate("", {Path("tests/test_headers.py"): {"test_str"}}, project)
    assert located[0].path.as_posix() == "src/tool/headers.py" and "__str__" in located[0].focus.attributes
    located = locate("", {Path("tests/test_contains.py"): {"test_has"}}, project)
    assert "__contains__" in located[0].focus.attributes


def test_the_inherited_method_the_test_reaches_is_shown_with_its_class_header():
    shown = excerpt(MODULE, "headers.py", Focus(names={"EnvironHeaders"}, attributes={"__str__"}))
    assert "class Headers:" in shown and "for k, v in self._list)" in shown  # Headers.__str__
    assert "def get_3(self):" not in shown and "class EnvironHeaders(Headers):" in shown
    # a subclass that defines the method itself: its base is not shown
    own = MODULE.replace("    def __iter__(self):\n        return iter(sorted",
                         "    def __str__(self):\n        return ''\n\n    def __iter__(self):\n"
                         "        return iter(sorted")
    assert "class Headers:" not in excerpt(own, "headers.py", Focus(names={"EnvironHeaders"},
                                                                     attributes={"__str__"}))


def test_a_line_edit_of_the_inherited_method_fixes_the_test(project):
    line = "```diff\n-        return \"; \".join(f\"{k}={v}\" for k, v in self._list)\n" \
           "+        return \"; \".join(f\"{k}={v}\" for k, v in self)\n```\n"
    prompt = fixed_by_a_line_edit(project, "src/tool/headers.py", HEADERS, line, REQUEST,
                                  MODULE.replace(HEADERS, HEADERS_FIXED))
    assert "for k, v in self._list)" in prompt and "def helper_70(x):" not in prompt
