"""A message the failing output quotes points at the code that writes it (marshmallow 3.21.0->3.21.1, a real
fix of the tune half: 'Field for "{field_name}" must be declared ...' was raised by a method the test
never names, so the excerpt of the 1,229-line schema.py showed only ``dump``). The scripted model and the
real tools on a real pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_project import fixed_by_a_line_edit, fixing_repo

from acode.agent.fixing.localise.quoted import quoted_lines

_GETTERS = "".join(f"    def get_{i}(self):\n        return {i}\n\n" for i in range(45))
SCHEMA = f'''class Schema:
    """Fields by name."""

    def __init__(self, **fields):
        self.fields = fields

    def dump(self, obj):
        return {{name: self._bind(name, kind)(obj) for name, kind in self.fields.items()}}

{_GETTERS}    def _bind(self, name, kind):
        if isinstance(kind, type):
            raise TypeError(
                'Field for "{{name}}" must be declared as an instance'
            )
        return kind
'''
SCHEMA_FIXED = SCHEMA.replace("""'Field for "{name}\"""", """f'Field for "{name}\"""")
FILLER = "".join(f'def helper_{i}(x):\n    """Helper {i}."""\n    return x + {i}\n\n\n' for i in range(140))
MODULE = '"""Schemas."""\n\n\n' + FILLER + SCHEMA  # over 400 lines: an excerpt
TEST = ("import pytest\n\nfrom tool.schema import Schema\n\n\ndef test_fields_are_instances():\n"
        "    with pytest.raises(TypeError, match='Field for \"name\" must be declared'):\n"
        "        Schema(name=str).dump(1)\n")
REQUEST = ("These tests fail: tests/test_schema.py::test_fields_are_instances. Fix the bug in the code (not "
           "the tests) so they pass (run them with: python -m pytest -q "
           "tests/test_schema.py::test_fields_are_instances)")


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    return fixing_repo(tmp_path, monkeypatch, {"src/tool/schema.py": MODULE, "tests/test_schema.py": TEST})


def test_the_lines_of_literals_the_output_quotes_and_nothing_shorter_or_a_docstring():
    source = ('"""A docstring the output happens to quote in full."""\n\nKEY = "utf-8"\n\n\ndef f():\n'
              '    raise ValueError("the value is out of range")\n')
    output = ("E   ValueError: the value is out of range\nA docstring the output happens to quote in full."
              " utf-8")
    assert quoted_lines(source, output) == {7}
    assert quoted_lines("def broken(:\n", output) == set()


def test_the_method_that_writes_the_quoted_message_is_shown_and_a_line_edit_fixes_it(project):
    line = "```diff\n-                'Field for \"{name}\" must be declared as an instance'\n" \
           "+                f'Field for \"{name}\" must be declared as an instance'\n```\n"
    # ruff's fix for the missing f (test_fixing_static.py) would solve it before the model is asked
    prompt = fixed_by_a_line_edit(project, "src/tool/schema.py", SCHEMA, line, REQUEST,
                                  MODULE.replace(SCHEMA, SCHEMA_FIXED), static_fixes=False)
    # the method the test never names is shown; the long class's other methods are not
    assert "    def _bind(self, name, kind):" in prompt and "def get_7(self):" not in prompt
