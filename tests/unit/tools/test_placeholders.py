"""Omission placeholders are recognised; ordinary comments and Python's ``...`` are not."""

from __future__ import annotations

import pytest

from acode.tools.placeholders import find_new_placeholders, is_placeholder_line

PLACEHOLDERS = [
    "# ... rest of code unchanged ...",
    "// existing code here",
    "    # rest of the file",
    "# ... existing methods ...",
    "    // ... other methods remain the same",
    "<!-- rest of the content -->",
    "# unchanged",
    "# the rest of the implementation is unchanged",
    "# Other methods remain the same",
    "# code omitted for brevity",
    "/* … previous implementation … */",
]
ORDINARY = [
    "/* ... */",
    "# existing code paths handle this case",
    "x = 1  # ...",
    "...",
    'print("...")',
    "# TODO: rest of the code",
    "return ...",
    "# Other methods",
    "# Rest of the tests use fixtures",
    "def f(): ...",
    "rest_of_code = unchanged",
]


@pytest.mark.parametrize("line", PLACEHOLDERS)
def test_placeholders_are_recognised(line):
    assert is_placeholder_line(line)


@pytest.mark.parametrize("line", ORDINARY)
def test_ordinary_lines_are_not(line):
    assert not is_placeholder_line(line)


def test_only_new_placeholders_count():
    old = "a\n# ... rest of code unchanged ...\n"
    assert find_new_placeholders(old + "b\n", old) == []
    assert find_new_placeholders("// existing code here\n", old) == ["// existing code here"]
