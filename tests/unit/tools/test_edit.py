"""replace: exact and whitespace-tolerant matching, counts, CRLF, creation and refusals."""

from __future__ import annotations

import pytest

from acode.tools.base import ToolError
from acode.tools.edit import apply_replacement


def test_exact_single_replacement_with_diff(workspace, call, ctx):
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    result = call("replace", file_path="a.py", old_string="y = 2", new_string="y = 3")
    assert result.ok and result.output == "Replaced 1 occurrence(s) in a.py."
    assert (workspace / "a.py").read_text() == "x = 1\ny = 3\n"
    assert "-y = 2" in result.display and "+y = 3" in result.display
    assert ctx.state["files_changed"] == ["a.py"]


def test_zero_matches_is_an_error_with_count(workspace, call, ctx):
    (workspace / "a.py").write_text("x = 1\n")
    result = call("replace", file_path="a.py", old_string="nothing like it", new_string="z")
    assert "Found 0 occurrences" in result.error
    assert (workspace / "a.py").read_text() == "x = 1\n"
    assert "files_changed" not in ctx.state


def test_two_matches_without_allow_multiple_is_an_error(workspace, call):
    (workspace / "a.py").write_text("v = 0\nv = 0\n")
    result = call("replace", file_path="a.py", old_string="v = 0", new_string="v = 1")
    assert "Found 2 occurrences" in result.error and "allow_multiple" in result.error
    assert (workspace / "a.py").read_text() == "v = 0\nv = 0\n"


def test_allow_multiple_replaces_all(workspace, call):
    (workspace / "a.py").write_text("v = 0\nv = 0\nw\n")
    result = call("replace", file_path="a.py", old_string="v = 0", new_string="v = 1", allow_multiple=True)
    assert result.output == "Replaced 2 occurrence(s) in a.py."
    assert (workspace / "a.py").read_text() == "v = 1\nv = 1\nw\n"


def test_whitespace_tolerant_match_reapplies_file_indentation(workspace, call):
    (workspace / "m.py").write_text(
        "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n"
    )
    result = call(
        "replace",
        file_path="m.py",
        old_string="def f(self):\n    return 1",  # model dropped one indentation level
        new_string="def f(self):\n    if self:\n        return 2\n    return 1",
    )
    assert result.ok and "matched ignoring whitespace" in result.output
    assert (workspace / "m.py").read_text() == (
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n\n"
        "    def g(self):\n        pass\n"
    )


def test_whitespace_tolerant_match_counts_too(workspace, call):
    (workspace / "m.py").write_text("if a:\n    go()\nif b:\n        go()\n")
    result = call("replace", file_path="m.py", old_string="  go()  ", new_string="stop()")
    assert "Found 2 occurrences" in result.error


def test_crlf_file_stays_crlf(workspace, call):
    (workspace / "w.txt").write_bytes(b"first\r\nsecond\r\nthird\r\n")
    result = call("replace", file_path="w.txt", old_string="first\nsecond", new_string="1st\n2nd\nextra")
    assert result.ok
    assert (workspace / "w.txt").read_bytes() == b"1st\r\n2nd\r\nextra\r\nthird\r\n"


def test_empty_old_string_creates_missing_file(workspace, call, ctx):
    result = call("replace", file_path="new/dir/f.py", old_string="", new_string="print('hi')\n")
    assert result.ok and (workspace / "new/dir/f.py").read_text() == "print('hi')\n"
    assert ctx.state["files_changed"] == ["new/dir/f.py"]


def test_empty_old_string_on_existing_file_is_an_error(workspace, call):
    (workspace / "a.py").write_text("keep\n")
    result = call("replace", file_path="a.py", old_string="", new_string="boom")
    assert "already exists" in result.error and (workspace / "a.py").read_text() == "keep\n"


def test_placeholder_in_new_string_is_refused(workspace, call):
    (workspace / "a.py").write_text("def f():\n    a()\n    b()\n")
    result = call(
        "replace",
        file_path="a.py",
        old_string="    a()\n    b()",
        new_string="    a()\n    # ... rest of code ...\n",
    )
    assert (
        "placeholder" in result.error and (workspace / "a.py").read_text() == "def f():\n    a()\n    b()\n"
    )


def test_same_old_and_new_is_an_error(workspace, call):
    (workspace / "a.py").write_text("x\n")
    assert "nothing to change" in call("replace", file_path="a.py", old_string="x", new_string="x").error


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("replace", {"file_path": "missing.py", "old_string": "a", "new_string": "b"}, "File not found"),
        ("replace", {"file_path": "a.py", "old_string": "a"}, "new_string: Field required"),
        ("replace", {"file_path": "a.py", "old_string": 3, "new_string": "b"}, "old_string: Input should be"),
        (
            "replace",
            {"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"},
            "outside the workspace",
        ),
    ],
)
def test_replace_errors(workspace, call, name, args, message):
    (workspace / "a.py").write_text("a\n")
    assert message in call(name, **args).error


def test_apply_replacement_rejects_whitespace_only_old_string():
    with pytest.raises(ToolError, match="only whitespace"):
        apply_replacement("a\n\nb\n", "   ", "x", False)
