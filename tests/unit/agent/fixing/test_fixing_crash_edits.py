"""Edits of the statement a failing test crashed in, without a model call (acode.agent.fixing.crash_edits):
what is read from pytest's output, which edits are listed, and how the fixer tests them (after the one call
and its line asks; kept only as the whole fix)."""

from __future__ import annotations

import pytest
from tests.helpers.fixing_project import fixing_repo, reply, send

from acode.agent.fixing.crash_edits import Crash, crash_edits, read_crashes
from acode.agent.fixing.file_view import FileView
from acode.llm.scripted import ScriptedModel

# the shape of pytest's output with --tb=short (idna 3.7->3.8's, the names changed)
OUTPUT = """F.F                                                                      [100%]
=================================== FAILURES ===================================
_________________________________ test_decode __________________________________
tests/test_codec.py:9: in test_decode
    pytest.raises(codec.CodecError, decode, "x--9")
src/codec/core.py:14: in decode
    return [width(part) for part in text.split("--")]
src/codec/core.py:8: in width
    return int(part)
E   ValueError: invalid literal for int() with base 10: 'x'
_________________________________ test_total ___________________________________
tests/test_codec.py:14: in test_total
    assert total("1--2") == 4
E   assert 3 == 4
=========================== short test summary info ============================
FAILED tests/test_codec.py::test_decode - ValueError: invalid literal for int() with base 10: 'x'
FAILED tests/test_codec.py::test_total - assert 3 == 4
2 failed, 1 passed in 0.05s
"""
CORE = '''class CodecError(ValueError):
    """A text this codec cannot read."""


def width(part):
    if not part:
        return 0
    return int(part)


def decode(text):
    if text is None:
        return []
    return [width(part) for part in text.split("--")]


def total(text):
    return sum(decode(text))
'''


def test_a_crash_is_read_with_its_project_frames_the_one_that_raised_first():
    crashes = read_crashes(OUTPUT, {"src/codec/core.py"})
    # the failed assertion in test_total is no crash: its only frame is the test's
    assert crashes == [Crash((("src/codec/core.py", 8), ("src/codec/core.py", 14)), "ValueError",
                             "invalid literal for int() with base 10: 'x'", "CodecError")]
    assert read_crashes(OUTPUT, {"src/other.py"}) == []  # no frame in a file the fixer may write


def _edits(crash: Crash, text: str = CORE) -> list[tuple[int, str, str]]:
    return [(e.line, e.what, e.text) for e in crash_edits([crash], [FileView("src/codec/core.py", text)], 10)]


def test_the_exception_the_test_expects_is_raised_instead_at_each_frame():
    crash = read_crashes(OUTPUT, {"src/codec/core.py"})[0]
    edits = _edits(crash)
    assert [(line, what) for line, what, _ in edits] == [
        (8, "`ValueError` raised as `CodecError`"), (14, "`ValueError` raised as `CodecError`")]
    assert ("    try:\n        return int(part)\n    except ValueError as exc:\n"
            "        raise CodecError(str(exc)) from exc\n") in edits[0][2]
    # an exception the module does not define or import is not written into it, neither raised nor caught
    assert _edits(Crash((("src/codec/core.py", 8),), "ValueError", "", "DecodeFailure")) == []
    assert _edits(Crash((("src/codec/core.py", 8),), "ParserInternalError", "", "CodecError")) == []


@pytest.mark.parametrize(("error", "message", "statement", "guard"), [
    ("AttributeError", "'Box' object has no attribute 'size'", "return part.size + 1",
     'if hasattr(part, "size"):'),
    ("TypeError", "'NoneType' object is not subscriptable", "return part[0] + 1", "if part is not None:"),
    ("KeyError", "'w'", "return part['w'] + 1", "if 'w' in part:"),
])
def test_a_crash_without_an_expected_exception_gets_the_guard_of_its_kind(error, message, statement, guard):
    text = CORE.replace("return int(part)", statement)
    edits = _edits(Crash((("src/codec/core.py", 8),), error, message, None), text)
    assert [what for _, what, _ in edits] == [f"the guard `{guard[:-1]}:`"]
    assert f"    {guard}\n        {statement}\n" in edits[0][2]


def test_a_compound_statement_is_guarded_whole_and_a_multiline_string_is_never_reindented():
    text = CORE.replace("    if text is None:\n        return []\n",
                        "    for piece in text.parts:\n        print(piece)\n")
    missing = "'str' object has no attribute"
    crash = Crash((("src/codec/core.py", 12),), "AttributeError", f"{missing} 'parts'", None)
    [(_, _, edited)] = _edits(crash, text)
    assert ('    if hasattr(text, "parts"):\n        for piece in text.parts:\n'
            '            print(piece)\n') in edited
    with_string = CORE.replace("return int(part)", 'return int(part.value or """\n0""")')
    crash = Crash((("src/codec/core.py", 8),), "AttributeError", f"{missing} 'value'", None)
    assert _edits(crash, with_string) == []


TESTS = '''import pytest

from codec import core


def test_decode():
    with pytest.raises(core.CodecError):
        core.decode("x--9")


def test_decode_numbers():
    assert core.decode("1--2") == [1, 2]
'''


def _fix_decode(tmp_path, monkeypatch, **fix: object):
    """The codec project's failing test_decode, fixed by acode with a model that echoes the file (no line
    asks): the result, and the project."""
    repo = fixing_repo(tmp_path, monkeypatch, {"src/codec/__init__.py": "", "src/codec/core.py": CORE,
                                               "tests/test_codec.py": TESTS})
    node = "tests/test_codec.py::test_decode"
    model = ScriptedModel([reply("src/codec/core.py", CORE)] + ["no reply"] * 6)
    result = send(repo, model, f"These tests fail: {node}. Fix the bug in the code (not the tests) so they "
                               f"pass (run them with: python -m pytest -q {node})", line_edit_calls=0, **fix)
    assert model.calls, "the one call comes first"
    return result, repo


@pytest.mark.slow
def test_the_fixer_raises_the_expected_exception_after_the_model_echoed(tmp_path, monkeypatch):
    result, repo = _fix_decode(tmp_path, monkeypatch, crash_edits=6)
    assert result.ok and "passes now" in result.answer, result.message
    assert "`ValueError` raised as `CodecError` at src/codec/core.py:8, no model call" in result.answer
    assert "raise CodecError(str(exc)) from exc" in (repo / "src/codec/core.py").read_text()
    # and the test file's other test still passes: the neighbours check ran the file whole
    assert "tests/test_codec.py` fails on nothing that passed before" in result.answer


def test_no_crash_edit_is_tried_when_they_are_off(tmp_path, monkeypatch):
    result, repo = _fix_decode(tmp_path, monkeypatch, crash_edits=0, suspect_asks=0)
    assert result.stop_reason == "tests_failing", result.message
    assert (repo / "src/codec/core.py").read_text() == CORE
    assert not any("try:" in s.arguments["content"] for s in result.tool_steps() if s.name == "write_file")
