"""One-edit candidates without a model call (acode.agent.fixing.mutants): which edits are listed, on which
lines, and how the fixer tests them after the one call and its line asks: the tests choose, the file's
own examples still have to pass, and on a real project only the suspect functions are edited."""

from __future__ import annotations

import ast

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, session
from tests.helpers.fixing_calc import REQUEST as CALC_REQUEST
from tests.helpers.fixing_project import fixing_repo, reply, send
from tests.helpers.spectrum_project import REPORT, REQUEST, STATS, TESTS

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.mutants import body_lines, deletion_candidates, mutant_candidates, mutants
from acode.llm.scripted import ScriptedModel

CODE = '''def window(xs, n):
    """The first n items, and whether there were more.

    >>> window([1, 2, 3], 2)
    ([1, 2], True)
    """
    if len(xs) < n and not xs is None:
        return xs[0:n], False
    for i in range(len(xs) - 1):
        pass
    return xs[:n], True
'''


def _edits(text: str, lines, limit: int = 100) -> list[tuple[int, str]]:
    return [(m.line, m.after.strip()) for m in mutants(text, lines, limit)]


def test_the_edits_of_a_line_are_the_usual_one_line_bugs_and_each_is_another_program():
    edits = _edits(CODE, body_lines(CODE))
    on_7 = [after for line, after in edits if line == 7]
    assert "if len(xs) <= n and not xs is None:" in on_7  # a comparison's `=`
    assert "if len(xs) > n and not xs is None:" in on_7  # its direction
    assert "if len(xs) < n or not xs is None:" in on_7  # and / or
    assert "if len(xs) < n and xs is None:" in on_7  # a `not` dropped (not the one of `is not`)
    assert "if not (len(xs) < n and not xs is None):" in on_7  # the condition negated
    on_8 = [after for line, after in edits if line == 8]
    assert "return xs[0:n], True" in on_8 and "return xs[1:n], False" in on_8  # constants
    assert "return xs[0:n + 1], False" in on_8 and "return xs[0:n - 1], False" in on_8  # a slice's end
    on_9 = [after for line, after in edits if line == 9]
    assert "for i in range(len(xs)):" in on_9  # `n - 1` as `n`, never `n - 0`
    assert "for i in range(len(xs) - 0):" not in on_9 and "for i in range(len(xs) - 2):" in on_9
    assert all("((" not in after for after in on_9)  # an end that is already `x - 1` is not offset again
    original = ast.dump(ast.parse(CODE))
    texts = [m.text for m in mutants(CODE, body_lines(CODE), 100)]
    assert len(set(texts)) == len(texts) and all(ast.dump(ast.parse(t)) != original for t in texts)


def test_only_function_bodies_are_edited_and_the_limit_holds():
    lines = body_lines(CODE)
    assert lines == [7, 8, 9, 10, 11]  # not the signature, not the docstring with its example
    assert len(mutants(CODE, lines, 3)) == 3
    assert {line for line, _ in _edits(CODE, [9])} == {9}
    assert mutants("def f(:\n", [1], 10) == []  # a file that does not parse has none
    # lines as Python counts them: a form feed inside a string does not end one
    feed = 'def f(x):\n    y = "a\x0cb"\n    return x < 1\n'
    assert body_lines(feed) == [2, 3] and _edits(feed, [3], 1) == [(3, "return x <= 1")]
    assert body_lines(CODE, span=(8, 9)) == [8, 9]
    excerpt = "# shown are ...\n    for i in range(len(xs) - 1):\n        pass\n"
    assert body_lines(CODE, shown=excerpt) == [9, 10]  # an excerpt: only the lines the prompt showed


def test_the_limit_is_shared_between_the_sources_and_only_python_is_edited():
    other = FileView("b.py", "def g(a):\n    return a + 1\n")
    found = mutant_candidates([(FileView("a.py", CODE), None), (other, None),
                               (FileView("notes.txt", "x < 1\n"), None)], 4)
    assert [path for path, _ in found] == ["a.py", "a.py", "b.py", "b.py"]
    # what a source leaves unused goes to the next: b.py has three edits of its four, a.py gets five
    found = mutant_candidates([(other, None), (FileView("a.py", CODE), None)], 8)
    assert [path for path, _ in found] == ["b.py"] * 3 + ["a.py"] * 5
    assert mutant_candidates([(FileView("a.py", CODE), None)], 0) == []


def test_an_edit_fixes_what_every_reply_of_the_model_echoed(project):
    """The calc fixture's `a - b`: the one call gives the file back unchanged, and so does every later
    call; an edit without a model call passes, and the answer says so."""
    model = ScriptedModel([reply("calc.py", BUGGY)] * 6)
    s = session(project, model, mutants=24)
    result = s.send(CALC_REQUEST)
    s.close()
    assert result.stop_reason == "answer" and "passes now" in result.answer
    assert "the edit `return a - b` -> `return a + b` at calc.py:2, no model call" in result.answer
    assert (project / "calc.py").read_text() == FIXED
    assert len(model.calls) == 1  # the one call; the edits came before any further whole file


@pytest.mark.slow
def test_an_edit_that_passes_the_tests_but_breaks_the_examples_is_not_the_answer(git_repo):
    count = '''def count_even(xs):
    """How many items are even.

    >>> count_even([1, 2, 3, 4])
    2
    """
    return sum(1 for x in xs if x % 2 == 1)
'''
    (git_repo / "calc.py").write_text(count)
    (git_repo / "test_calc.py").write_text(
        "from calc import count_even\n\n\ndef test_odd_only():\n    assert count_even([1, 3]) == 0\n")
    model = ScriptedModel([reply("calc.py", count)] * 6)
    s = session(git_repo, model, mutants=24)
    result = s.send(CALC_REQUEST.replace("test_calc.py fail", "test_calc.py fail"))
    s.close()
    assert result.stop_reason == "answer", result.answer
    # `sum(0 for ...)` passes the test first, and its example fails: the search goes on to the fix
    assert "x % 2 != 1" in (git_repo / "calc.py").read_text()
    assert "Its docstring examples still fail" not in result.answer
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    assert sum("--doctest-modules" in r for r in runs) >= 2  # the rejected edit's examples, then the fix's


def test_no_edit_is_tried_when_they_are_off(project):
    model = ScriptedModel([reply("calc.py", BUGGY)] * 6)
    s = session(project, model, mutants=0, max_model_calls=1)
    result = s.send(CALC_REQUEST)
    s.close()
    assert result.stop_reason == "tests_failing"
    assert (project / "calc.py").read_text() == BUGGY


@pytest.mark.slow
def test_on_a_real_project_only_the_suspect_functions_are_edited(tmp_path, monkeypatch):
    """The spectrum project: `spread`'s `+ 1`, two calls below the failing test. The edits are of the
    suspects the test spectrum names, not of every function the prompt shows, and the fix must not break
    the other tests of the file (they run whole for it)."""
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    repo = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/report.py", REPORT)] + ["no reply"] * 10)
    result = send(repo, model, REQUEST, line_edit_calls=0, mutants=24)
    assert result.ok and "passes now" in result.answer, result.message
    assert "-> `return max(values) - min(values)` at src/tool/stats.py:6, no model call" in result.answer
    assert (repo / "src/tool/stats.py").read_text() == STATS.replace(" - min(values) + 1", " - min(values)")
    assert (repo / "src/tool/report.py").read_text() == REPORT
    written = [s.arguments["file_path"] for s in result.tool_steps() if s.name == "write_file"]
    assert set(written) <= {"src/tool/stats.py", "src/tool/report.py"}
    assert "tests/test_report.py` fails on nothing that passed before" in result.answer


COUNT = '''def count(xs):
    """How many items are even.

    >>> count([1, 2, 3, 4])
    2
    """
    return sum(2 for x in xs if x % 2 == 1)
'''
HALF_FIXES = {
    # add's edit passes test_add, and no edit passes test_double too: more tests pass, not all
    "more tests": ("def add(a, b):\n    return a - b\n\n\ndef double(x):\n    return 3 * x\n",
                   ("def test_add():\n    assert add(2, 3) == 5\n\n\n"
                    "def test_double():\n    assert double(2) == 4\n"),
                   "add, double", ("a - b", "a + b")),
    # `x % 1 == 1` passes the test (never true: 0) and fails the example; no edit passes both
    "not the examples": (COUNT, "def test_odd_only():\n    assert count([1, 3]) == 0\n", "count",
                         ("x % 2 == 1", "x % 1 == 1")),
}


@pytest.mark.parametrize("case", sorted(HALF_FIXES))
def test_an_edit_that_is_half_a_fix_is_never_left_in_place(git_repo, case):
    """A model's candidate that passes more tests is kept when none passes them all, and one that passes
    the tests but not the file's examples is the answer when nothing passes both: an edit listed without
    a model is neither. The run fails and the file is as it was."""
    code, tests, names, (old, new) = HALF_FIXES[case]
    (git_repo / "calc.py").write_text(code)
    (git_repo / "test_calc.py").write_text(f"from calc import {names}\n\n\n{tests}")
    model = ScriptedModel([reply("calc.py", code)] * 6)
    s = session(git_repo, model, mutants=40, max_model_calls=1)
    result = s.send(CALC_REQUEST)
    s.close()
    assert result.stop_reason == "tests_failing", result.answer
    assert (git_repo / "calc.py").read_text() == code
    written = [s.arguments["content"] for s in result.tool_steps() if s.name == "write_file"]
    assert code.replace(old, new) in written  # the half fix was tried


def test_edits_of_methods_and_nested_functions_are_checked_in_their_own_function():
    """Each edit is parsed with only the def it is in (a method's or a nested function's, indented), not
    the whole file (pyparsing's 6,700-line core.py: 7.8 s for 24 edits). An indented def is parsed inside
    an `if`, so a method's edits are listed, and each is a different program that still parses."""
    code = ("class Box:\n    def fits(self, n):\n        def inner(m):\n            return m < n\n"
            "        return inner(self.size) and n > 0\n\n\n"
            "def broken_elsewhere():\n    return [x for x in range(3) if x % 2 == 0]\n")
    edits = _edits(code, body_lines(code))
    assert (4, "return m <= n") in edits and (5, "return inner(self.size) or n > 0") in edits
    assert (9, "return [x for x in range(3) if x % 2 != 0]") in edits
    original = ast.dump(ast.parse(code))
    for mutant in mutants(code, body_lines(code), 100):
        assert ast.dump(ast.parse(mutant.text)) != original


DELETING = '''def tally(words):
    """Each word's count."""
    counts = {}
    total = 0; seen = 0
    for word in words:
        counts[word] = counts.get(word,
                                  0) + 1
    if not counts:
        return {}
    print("tallied")
    while total < 3:
        total += 1
        print(total)
    return counts
'''


def test_a_deletion_removes_one_statement_that_is_not_the_only_one_of_its_block():
    found = deletion_candidates([(FileView("t.py", DELETING), None)], 20)
    assert [m.line for _, m in found] == [3, 8, 10, 14]
    # not the docstring, not a line of two statements, not a statement over two lines, not a block's only
    # statement (`return {}`), not a loop, nothing in a `while` loop (it may never end); an `if` whole
    assert found[0][1].describe("t.py") == "`counts = {}` deleted at t.py:3, no model call"
    assert found[1][1].describe("t.py") == \
        "`if not counts:` and its block (2 lines) deleted at t.py:8, no model call"
    assert found[1][1].text == DELETING.replace("    if not counts:\n        return {}\n", "")
    for _, mutant in found:
        assert mutant.after == "" and mutant.text.count("\n") == DELETING.count("\n") - mutant.lines
        ast.parse(mutant.text)
    assert [m.line for _, m in deletion_candidates([(FileView("t.py", DELETING), (9, 14))], 20)] == [10, 14]
    assert len(deletion_candidates([(FileView("t.py", DELETING), None)], 2)) == 2


COPYING = '''class Tally:
    def __init__(self):
        self.counts = {}

    def add(self, word):
        self.counts[word] = self.counts.get(word, 0) + 1

    def copy(self):
        other = Tally()
        other.counts = dict(self.counts)
        other.counts.clear()
        return other
'''


TALLY_TEST = ("from tool.tally import Tally\n\n\ndef test_copy_keeps_the_counts():\n    t = Tally()\n"
              "    t.add('a')\n    t.add('a')\n    assert t.copy().counts == {'a': 2}\n")
TALLY_NODE = "tests/test_tally.py::test_copy_keeps_the_counts"


def _fix_tally(tmp_path, monkeypatch, request: str, **fix):
    """``request`` about tool/tally.py in a real project, the scripted model echoing the file."""
    files = {"src/tool/tally.py": COPYING, "tests/test_tally.py": TALLY_TEST}
    repo = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/tally.py", COPYING)] + ["no reply"] * 8)
    return repo, send(repo, model, request, mutants=24, line_edit_calls=0, suspect_asks=0, **fix)


@pytest.mark.slow
def test_a_statement_too_many_is_deleted_after_the_one_token_edits_fail(tmp_path, monkeypatch):
    request = (f"These tests fail: {TALLY_NODE}. Fix the bug in the code (not the tests) so they pass (run "
               f"them with: python -m pytest -q {TALLY_NODE})")
    repo, result = _fix_tally(tmp_path, monkeypatch, request, deletions=12)
    assert result.ok and "passes now" in result.answer, result.message
    assert "`other.counts.clear()` deleted at src/tool/tally.py:11, no model call" in result.answer
    assert (repo / "src/tool/tally.py").read_text() == COPYING.replace("        other.counts.clear()\n", "")
    # off, none is tried
    repo, result = _fix_tally(tmp_path / "off", monkeypatch, request, deletions=0, max_model_calls=1)
    assert not result.ok and (repo / "src/tool/tally.py").read_text() == COPYING


@pytest.mark.slow
def test_no_statement_is_deleted_where_only_the_shown_tests_judge(tmp_path, monkeypatch):
    """A request that names no test inside a file (a small project's `python -m pytest -q`): there is no
    whole suite beyond the shown tests to catch a deletion that passes them wrongly."""
    request = "The tests in tests/test_tally.py fail because src/tool/tally.py has a bug. Fix it."
    repo, result = _fix_tally(tmp_path, monkeypatch, request, deletions=12, max_model_calls=1,
                              test_command="python -m pytest -q tests/test_tally.py")
    assert not result.ok and (repo / "src/tool/tally.py").read_text() == COPYING
