"""mypy on both sides of a change to annotations: what the tests cannot tell (a typing fix and the same fix
taken out again run the same), the project's type tests can. Real mypy and pytest runs in real git
repositories (no model)."""

from __future__ import annotations

import sys

import pytest
from tests.helpers.review_fakes import repo_with_branch

from acode.config.review import ReviewerSettings
from acode.llm.scripted import ScriptedModel
from acode.review.change.git_context import branch_context
from acode.review.evidence.gathering import gather_evidence
from acode.review.evidence.test_runs import SuitePlan
from acode.review.evidence.type_runs import annotations_of
from acode.review.reporting.report import describe_tests
from acode.review.service import review_change
from acode.sandbox import find_sandbox

PYTEST = f"{sys.executable} -m pytest -q tests/test_shapes.py"
TYPED = ("from typing import overload\n\n\n@overload\ndef scale(x: int) -> int: ...\n@overload\n"
         "def scale(x: float) -> float: ...\ndef scale(x):\n    return x * 2\n")
LOOSE = "def scale(x: object) -> object:\n    return x * 2  # type: ignore[operator]\n"
RUNTIME_TEST = "from shapes import scale\n\n\ndef test_scale():\n    assert scale(2) == 4\n"
TYPE_TEST = ("from typing_extensions import assert_type\n\nfrom shapes import scale\n\n"
             "assert_type(scale(2), int)\nassert_type(scale(2.5), float)\n")


def _plan() -> SuitePlan:
    return SuitePlan([PYTEST], find_sandbox()[0])


def _rules(evidence) -> dict[str, str]:
    return {f.rule: f.severity for f in evidence.findings if f.source == "types"}


def test_taking_a_typing_fix_out_again_breaks_the_type_tests(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/shapes.py": TYPED, "tests/test_shapes.py": RUNTIME_TEST,
                                             "tests/typing/check_scale.py": TYPE_TEST},
                            {"src/shapes.py": LOOSE}, message="Update shapes.py")
    evidence = gather_evidence(branch_context(repo, "main"), tests=_plan())
    assert not evidence.tests["regressed"]  # the runtime test passes on both sides
    types = evidence.tests["types"]
    assert "tests/typing/check_scale.py" in types["files"] and "src/shapes.py" in types["files"]
    assert any("check_scale.py" in e and "assert-type" in e for e in types["introduced"]), types
    assert _rules(evidence) == {"types/regressed": "high"}
    assert "type errors brought by the change" in describe_tests(evidence.tests)


@pytest.mark.slow
def test_a_typing_fix_with_its_type_test_is_confirmed_and_not_second_guessed(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"src/shapes.py": LOOSE, "tests/test_shapes.py": RUNTIME_TEST},
                            {"src/shapes.py": TYPED, "tests/typing/check_scale.py": TYPE_TEST},
                            message="Fix the type of scale()")
    context = branch_context(repo, "main")
    evidence = gather_evidence(context, tests=_plan())
    assert evidence.tests["types"]["removed"] and not evidence.tests["types"]["introduced"]
    assert _rules(evidence) == {"fixed/types": "info"}
    scored = []
    model = ScriptedModel([], scorer=lambda prefix, text: scored.append(text) or -5.0)
    result = review_change(context, model, ReviewerSettings(strategy="checks_only", test_command=PYTEST),
                           run_tests=True)
    assert scored == [] and result.decision.verdict == "APPROVED", result.decision.reasons


def test_a_change_that_edits_no_annotation_runs_no_type_checker(tmp_path):
    body = TYPED.replace("return x * 2", "return x + x")
    repo = repo_with_branch(tmp_path / "r", {"src/shapes.py": TYPED, "tests/test_shapes.py": RUNTIME_TEST,
                                             "tests/typing/check_scale.py": TYPE_TEST},
                            {"src/shapes.py": body})
    evidence = gather_evidence(branch_context(repo, "main"), tests=_plan())
    assert evidence.tests["types"] is None and _rules(evidence) == {}


def test_annotations_are_read_from_the_syntax_tree():
    found = annotations_of(TYPED)
    assert found["scale(x: int)"] == 1 and found["scale -> float"] == 1 and found["scale: @overload"] == 2
    assert annotations_of(TYPED.replace("x * 2", "x + x")) == found  # a body change is not a type change
    assert annotations_of("def broken(:\n") == annotations_of(None) == {}
    # an overload's default (`= ...`) is typing too (marshmallow 3.24.1 fixed get_class's that way)
    assert annotations_of(TYPED.replace("(x: int) -> int", "(x: int = ...) -> int")) != found


def test_a_type_test_the_change_adds_is_not_judged_by_pytest(tmp_path):
    """marshmallow 3.24.1 added tests/mypy_test_cases/test_class_registry.py: pytest collects it and it fails
    at run time (it is written for mypy), which must not count as the change's own new test failing."""
    for_mypy = TYPE_TEST.replace("from typing_extensions import assert_type\n", "") + "reveal_type(scale(2))\n"
    repo = repo_with_branch(tmp_path / "r", {"src/shapes.py": LOOSE, "tests/test_shapes.py": RUNTIME_TEST},
                            {"src/shapes.py": TYPED, "tests/mypy_cases/test_scale.py": for_mypy})
    evidence = gather_evidence(branch_context(repo, "main"),
                               tests=SuitePlan([f"{sys.executable} -m pytest -q tests"], find_sandbox()[0]))
    assert not evidence.tests["new_failing"]
    assert not [f for f in evidence.findings if f.rule == "tests/failed"]
