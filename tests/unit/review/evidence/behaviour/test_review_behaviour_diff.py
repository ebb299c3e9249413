"""The behavioural diff: the old and new version of each changed function run on the same inputs in the
sandbox (real child processes, real Hypothesis and CrossHair, real bubblewrap); the model only answers the
narrow question about a difference no rule decides (scripted here; the real 0.5B in
tests/integration/test_review_behaviour_real.py)."""

from __future__ import annotations

import json
import socket

import pytest
from tests.helpers.behaviour_diff import CHANGED, HELPERS
from tests.helpers.review_fakes import ASKS_CHANGE, repo_with_branch, yes_no

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.evidence.behaviour.child import parse_crosshair
from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff
from acode.review.evidence.behaviour.findings import claims_no_behaviour_change
from acode.review.evidence.behaviour.inputs import docstring_examples, module_name
from acode.review.judging.behaviour_question import backed_or_medium
from acode.review.models import Finding
from acode.review.reporting.report import describe_behaviour, render_markdown, to_sarif
from acode.review.service import review_change
from acode.sandbox import find_sandbox

SANDBOX = find_sandbox()[0]
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason="bubblewrap cannot start here")


def _repo(tmp_path, message: str):
    return branch_context(repo_with_branch(tmp_path / "r", {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS},
                                           {"pkg/helpers.py": CHANGED}, message=message), "main")


@needs_sandbox
def test_a_multi_function_change_shows_each_difference_with_its_input_and_lists_what_could_not_run(tmp_path):
    diff = run_behaviour_diff(_repo(tmp_path, "Tidy up helpers"), SANDBOX, Limits(crosshair_seconds=0))
    by_name = {r.function.qualname: r for r in diff.results}
    assert set(by_name) == {"bearer_token", "timeout_of", "first_negative", "total", "save", "Cache.key"}

    auth = by_name["bearer_token"]
    assert auth.status == "differs" and auth.difference["old"] == "raises PermissionError"
    assert auth.difference["new"].startswith("returns")  # a header without "Bearer " now gets in
    assert auth.difference["input"].startswith("bearer_token({'Authorization': ")
    zero = by_name["timeout_of"]
    assert zero.difference == {"input": "timeout_of({'timeout': 0})", "old": "returns 0", "new": "returns 30",
                               "found_by": "docstring", "what": "result", "kind": "returns",
                               "test": "from pkg.helpers import timeout_of\n\n\ndef test_timeout_of_as_before():\n"
                                       "    assert timeout_of({'timeout': 0}) == 0\n"}
    assert [c["new_ok"] for c in zero.docstring] == [False, True]
    loop = by_name["first_negative"]
    assert loop.status == "differs" and loop.difference["new"] == "returns None"
    assert loop.difference["old"].startswith("returns -")
    assert by_name["total"].status == "same" and by_name["total"].tried >= 100

    assert by_name["save"].status == "not_run" and "for writing" in by_name["save"].why
    # a class that cannot be built without arguments is built from its constructor's parameters, in the
    # call sequences (issue 49; before: "could not be run")
    key = by_name["Cache.key"]
    assert key.status == "differs" and key.difference["found_by"] == "sequence"
    assert key.difference["input"].startswith("obj = Cache(") and "; obj.key(" in key.difference["input"]
    lines = describe_behaviour(diff.record())
    assert lines[0] == "5 changed function(s) run old and new, 4 differ, 1 could not be run"


@needs_sandbox
def test_under_a_refactoring_message_every_difference_is_high_and_the_review_rejects(tmp_path):
    model = ScriptedModel([])  # no question is needed: the message claims no behaviour change
    settings = ReviewerSettings(strategy="checks_only", regression={"method": "off"},
                                behaviour={"crosshair_seconds": 0})
    result = review_change(_repo(tmp_path, "Tidy up helpers"), model, settings, behaviour=True)
    found = {f.message.split("`")[1].split("(")[0]: f for f in result.evidence if f.rule == "behaviour/changed"}
    assert set(found) == {"bearer_token", "timeout_of", "first_negative", "obj = Cache"}
    assert all(f.severity == "high" and f.counts for f in found.values())
    assert "docstring's example timeout_of({'timeout': 0}) gives 0" in found["timeout_of"].message
    assert "says it is a tidy" in found["bearer_token"].message
    assert result.decision.verdict == "REJECTED" and model.calls == []
    # the input and both outcomes in every format
    assert "timeout_of({'timeout': 0})" in render_markdown(result) and "## Behavioural diff" in render_markdown(result)
    sarif = to_sarif(result)["runs"][0]
    assert any(r["ruleId"] == "behaviour/changed" and "before the change it returns 0, now it returns 30"
               in r["message"]["text"] for r in sarif["results"])
    assert sarif["properties"]["behaviour"]["functions"]
    assert json.loads(result.model_dump_json())["behaviour"]["functions"][1]["difference"]["new"] == "returns 30"


@needs_sandbox
def test_otherwise_the_model_is_asked_which_outcome_is_right_once_per_side(tmp_path):
    # the intent question's four answers, then bearer_token, first_negative, then Cache.key (timeout_of is
    # decided by its docstring): old first, then new
    model = ScriptedModel([*ASKS_CHANGE, yes_no(0.9), yes_no(0.1), yes_no(0.2), yes_no(0.9), yes_no(0.5),
                           yes_no(0.5)])
    settings = ReviewerSettings(strategy="checks_only", regression={"method": "off"},
                                behaviour={"crosshair_seconds": 0})
    result = review_change(_repo(tmp_path, "Accept more header forms"), model, settings, behaviour=True)
    found = {f.message.split("`")[1].split("(")[0]: f for f in result.evidence if f.rule == "behaviour/changed"}
    assert found["bearer_token"].severity == "high" and "finds the old outcome right" in found["bearer_token"].message
    assert found["first_negative"].status == "dismissed" and found["first_negative"].severity == "info"
    assert found["timeout_of"].severity == "high"  # against the docstring's example: no question asked
    assert len(model.calls) == 10  # the intent question's four answers first
    question = model.calls[4]["messages"][-1].content
    assert "Accept more header forms" in question and "raises PermissionError" in question
    assert result.decision.verdict == "REJECTED"


@needs_sandbox
def test_crosshair_finds_what_random_inputs_miss(tmp_path):
    before = "def gate(x: int, y: int) -> int:\n    if x > 1000 and y == x * 3 - 7:\n        return 1\n    return 0\n"
    after = "def gate(x: int, y: int) -> int:\n    return 0\n"
    context = branch_context(repo_with_branch(tmp_path / "g", {"gate.py": before}, {"gate.py": after}), "main")
    without = run_behaviour_diff(context, SANDBOX, Limits(seconds=2, crosshair_seconds=0)).results[0]
    assert without.status == "same"
    found = run_behaviour_diff(context, SANDBOX, Limits(seconds=2, crosshair_seconds=5)).results[0]
    assert found.status == "differs" and found.difference["found_by"] == "crosshair"
    assert (found.difference["old"], found.difference["new"]) == ("returns 1", "returns 0")


ESCAPE = '''import socket

MARKER = {marker!r}
try:
    with open(MARKER, "w") as out:  # at import, outside any guard of the runner
        out.write("escaped")
except OSError:
    pass
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"escaped")
except OSError:
    pass


def double(x):
    return x * 2
'''


@needs_sandbox
def test_code_under_review_cannot_write_outside_or_reach_the_network(tmp_path):
    marker = tmp_path / "outside" / "escaped.txt"
    marker.parent.mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    old = ESCAPE.format(marker=str(marker), port=port)
    new = old.replace("return x * 2", "return x + x + 1")
    context = branch_context(repo_with_branch(tmp_path / "e", {"evil.py": old}, {"evil.py": new}), "main")
    [result] = run_behaviour_diff(context, SANDBOX, Limits(seconds=2, crosshair_seconds=0)).results
    assert result.status == "differs"  # it ran, in the sandbox, and its imports' escapes failed
    assert not marker.exists()
    with pytest.raises(TimeoutError):
        listener.accept()  # no connection reached the host's loopback
    listener.close()


def test_what_the_inputs_and_severities_are_read_from():
    assert module_name("src/pkg/mod.py") == "pkg.mod" and module_name("pkg/__init__.py") == "pkg"
    assert module_name("scripts/my-tool.py") is None
    assert docstring_examples(">>> f(1, [2])\n3\n>>> f(x)\n1\n", "f") == [{"args": "(1, [2])", "kwargs": "{}",
                                                                           "want": "3"}]
    assert claims_no_behaviour_change("Refactor the parser") == "Refactor"
    assert claims_no_behaviour_change("Rename helpers; no behaviour change") == "Rename"
    assert claims_no_behaviour_change("Fix the off-by-one and tidy up") == ""
    assert claims_no_behaviour_change("Accept more header forms") == ""
    assert parse_crosshair("Given: (x=1001, y=2996),\n  shim.old : returns 1\n  shim.new : returns 0\n", "g") == {
        "input": "g(x=1001, y=2996)", "old": "returns 1", "new": "returns 0", "found_by": "crosshair",
        "what": "result"}


def test_a_likelihood_guess_is_high_only_where_executed_evidence_backs_it():
    guess = Finding(dimension="intent_alignment", source="model", rule="review/regression", severity="high",
                    message="less likely", file="pkg/helpers.py", line=6)

    def difference(severity: str, status: str = "confirmed", file: str = "pkg/helpers.py") -> Finding:
        return Finding(dimension="intent_alignment", source="behaviour", rule="behaviour/changed",
                       severity=severity, status=status, message="page(0): before 1, now 2", file=file,
                       line=4, end_line=9)

    alone = backed_or_medium(guess, [guess])  # nothing ran it, and it does not back itself
    assert alone.severity == "medium" and "a reason to look" in alone.message
    assert backed_or_medium(guess, [difference("medium")]).severity == "high"  # a difference left open
    assert backed_or_medium(guess, [difference("high")]).severity == "high"
    # the model's question found the new outcome right: nothing executed backs the guess
    assert backed_or_medium(guess, [difference("info", "dismissed")]).severity == "medium"
    assert backed_or_medium(guess, [difference("medium", file="other.py")]).severity == "medium"
    outside = guess.model_copy(update={"line": 12})
    assert backed_or_medium(outside, [difference("medium")]).severity == "medium"
    same_line = Finding(dimension="safety", source="ruff", rule="ruff/S301", severity="high", message="x",
                        file="pkg/helpers.py", line=6)
    assert backed_or_medium(guess, [same_line]).severity == "high"


def test_a_difference_where_both_versions_raise_is_shown_not_counted_and_not_asked():
    from acode.review.evidence.behaviour.diff import BehaviourDiff, FunctionResult
    from acode.review.evidence.behaviour.findings import ASK, behaviour_findings
    from acode.review.evidence.behaviour.inputs import ChangedFunction

    def result(old: str, new: str) -> FunctionResult:
        function = ChangedFunction(path="m.py", module="m", qualname="command", kind="function", line=4,
                                   end_line=30)
        return FunctionResult(function, "differs", difference={
            "input": "command(name=<symbolic>)", "old": old, "new": new, "found_by": "crosshair",
            "what": "result"})

    both, one = behaviour_findings(BehaviourDiff(results=[
        result("raises AttributeError", "raises AssertionError"), result("raises KeyError", "returns ''")]),
        "Allow the decorator without parentheses")
    assert both.severity == "low" and ASK not in both.metrics and "not counted" in both.message
    assert (both.line, both.end_line) == (4, 30)  # the function's span: where a guess may be backed
    assert one.severity == "medium" and ASK in one.metrics  # one side accepts the input: the model is asked


def test_the_likelihood_is_compared_only_inside_functions_with_an_open_difference():
    from acode.review.judging.behaviour_question import open_differences

    def difference(severity: str, status: str = "confirmed", line: int = 4) -> Finding:
        return Finding(dimension="intent_alignment", source="behaviour", rule="behaviour/changed",
                       severity=severity, status=status, message="d", file="m.py", line=line, end_line=line + 5)

    spans = open_differences([difference("medium"), difference("high", line=20),
                              difference("info", "dismissed", line=40)])
    assert spans == {"m.py": [(4, 9)]}  # decided differences need no guess; a dismissed one has none


OPAQUE = '''class Column:
    def __init__(self, name, wrap):
        self.name, self.wrap = name, wrap


def column(name: str) -> Column:
    return Column(name, True)


def parse(text: str) -> int:
    raise NotImplementedError(text)
'''


@needs_sandbox
def test_objects_that_print_alike_are_compared_by_what_they_hold_and_raising_alike_is_no_evidence(tmp_path):
    # a real fix of the kind (acode e55d5cc): a table column that must not wrap; the object's text is
    # `<Column object>` on both sides, so only what it holds shows the change
    after = OPAQUE.replace("Column(name, True)", "Column(name, False)").replace(
        "raise NotImplementedError(text)", "raise NotImplementedError(text.upper())")
    context = branch_context(repo_with_branch(tmp_path / "o", {"opaque.py": OPAQUE}, {"opaque.py": after}), "main")
    by_name = {r.function.qualname: r for r in run_behaviour_diff(context, SANDBOX, Limits(crosshair_seconds=0)).results}
    found = by_name["column"]
    assert found.status == "differs", found
    assert (found.difference["old"], found.difference["new"]) == ("returns Column(name='', wrap=True)",
                                                               "returns Column(name='', wrap=False)")
    # parse raises on every input on both sides: not "the same behaviour", but not run on anything it accepts
    assert by_name["parse"].status == "not_run" and "raised on both sides" in by_name["parse"].why
