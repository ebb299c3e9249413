"""What a description of a change says without a model: the files and the functions changed (from both
versions' syntax trees), the behaviour differences the behavioural diff found, the tests the change adds or
changes and the tests that name the changed code, how the tests ran, and a risk with its reasons, all read
from a review made without a model (``describing.describe``). The same change gives the same facts."""

from __future__ import annotations

import ast

from pydantic import BaseModel, Field

from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.change.surroundings import Around
from acode.review.evidence.ast_parts import functions_of
from acode.review.evidence.behaviour.findings import RULE as BEHAVIOUR_RULE
from acode.review.models import ChangedFile, ReviewContext, ReviewResult
from acode.review.reporting.report import describe_tests
from acode.test_files import is_test_path

LARGE_CHANGE_LINES = 400  # added + removed lines from which a change is a large one to review


class FileChange(BaseModel):
    path: str
    change_type: str
    additions: int = 0
    deletions: int = 0
    old_path: str | None = None
    added: list[str] = Field(default_factory=list)  # functions (qualified names) only the new version has
    changed: list[str] = Field(default_factory=list)  # functions on both sides whose code differs
    removed: list[str] = Field(default_factory=list)  # functions only the old version had


class BehaviourDifference(BaseModel):
    file: str
    line: int
    function: str
    call: str
    before: str
    after: str


class TestFacts(BaseModel):
    added: list[str] = Field(default_factory=list)  # test files the change adds
    changed: list[str] = Field(default_factory=list)  # test files it changes or deletes
    affected: list[str] = Field(default_factory=list)  # unchanged test files that name the changed code
    ran: str = ""  # how the tests ran on both sides ('' when they did not run)


class Risk(BaseModel):
    level: str  # low | medium | high
    reasons: list[str] = Field(default_factory=list)


class ChangeFacts(BaseModel):
    title: str
    intent: str = ""
    files: list[FileChange] = Field(default_factory=list)
    behaviour: list[BehaviourDifference] = Field(default_factory=list)
    behaviour_note: str = ""  # what the behavioural diff did when it found no difference
    tests: TestFacts = Field(default_factory=TestFacts)
    risk: Risk


def gather_facts(context: ReviewContext, result: ReviewResult, around: Around, title: str) -> ChangeFacts:
    """The facts of ``context`` from ``result`` (a review of it made without a model) and ``around`` (the
    test files that name its changed code)."""
    files = [_file_change(context, f) for f in context.files]
    behaviour, note = _behaviour(result)
    changed_tests = {f.path for f in context.files if is_test_path(f.path)}
    tests = TestFacts(
        added=[f.path for f in context.files if is_test_path(f.path) and f.change_type == "added"],
        changed=[f.path for f in context.files if is_test_path(f.path) and f.change_type != "added"],
        affected=[path for path in around.tests if path not in changed_tests],
        ran=describe_tests(result.tests) if result.tests and result.tests.get("command") else "")
    return ChangeFacts(title=title, intent=context.effective_intent(), files=files, behaviour=behaviour,
                       behaviour_note=note, tests=tests, risk=_risk(context, result, files, behaviour, tests))


def _file_change(context: ReviewContext, changed: ChangedFile) -> FileChange:
    entry = FileChange(path=changed.path, change_type=changed.change_type, additions=changed.additions,
                       deletions=changed.deletions, old_path=changed.old_path)
    if not changed.path.endswith(".py") or changed.change_type == "binary":
        return entry
    old = read_old_text(context, changed) or ""
    new = "" if changed.change_type == "deleted" else (read_new_text(context, changed.path) or "")
    before, after = _functions(old), _functions(new)
    if before is None or after is None:
        return entry
    entry.added = [name for name in after if name not in before]
    entry.removed = [name for name in before if name not in after]
    entry.changed = [name for name in after if name in before and before[name] != after[name]]
    return entry


def _functions(source: str) -> dict[str, str] | None:
    """Qualified name -> the function's syntax tree as text (its code, not its lines); None: not Python."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return {name: ast.dump(node) for name, node in functions_of(tree).items()}


def _behaviour(result: ReviewResult) -> tuple[list[BehaviourDifference], str]:
    record = result.behaviour or {}
    differences = []
    for item in record.get("functions") or []:
        found = item.get("difference")
        if item.get("status") == "differs" and found:
            differences.append(BehaviourDifference(file=item["file"], line=item["line"],
                                                   function=item["function"], call=str(found["input"]),
                                                   before=str(found["old"]), after=str(found["new"])))
    if differences:
        return differences, ""
    ran = [f for f in record.get("functions") or [] if f.get("status") != "not_run"]
    if ran:
        return [], f"{len(ran)} changed function(s) run in their old and new versions: no difference found"
    return [], record.get("note") or "the behavioural diff did not run (no changed Python function to run)"


def _risk(context: ReviewContext, result: ReviewResult, files: list[FileChange],
          behaviour: list[BehaviourDifference], tests: TestFacts) -> Risk:
    """high: a check's finding that rejects (a broken test, a secret, a rule ...); medium: a finding that
    needs work, a behaviour difference, changed code no test names, or a large change; low: none of these."""
    # a difference still open (medium) is the behaviour reason below; one the checks decided is a finding
    counting = [f for f in result.all_findings()
                if f.counts and not (f.rule == BEHAVIOUR_RULE and f.severity == "medium")]
    high = [f for f in counting if f.severity in ("critical", "high")]
    medium = [f for f in counting if f.severity == "medium"]
    reasons: list[str] = []
    if high:
        reasons.append(f"{len(high)} finding(s) of the checks that reject a change: "
                       + ", ".join(sorted({f.rule for f in high})))
    if medium:
        reasons.append(f"{len(medium)} finding(s) that need work: "
                       + ", ".join(sorted({f.rule for f in medium})))
    if behaviour:
        reasons.append(f"{len(behaviour)} function(s) behave differently: is each difference intended?")
    code = [f for f in files
            if f.path.endswith(".py") and not is_test_path(f.path) and (f.changed or f.added)]
    if code and not (tests.added or tests.changed or tests.affected):
        reasons.append("no test was added or changed, and no test names the changed code")
    size = sum(f.additions + f.deletions for f in context.files)
    if size >= LARGE_CHANGE_LINES:
        reasons.append(f"a large change: {size} lines added or removed")
    level = "high" if high else "medium" if reasons else "low"
    if not reasons:
        reasons.append("no check found a problem" + (", and tests cover the changed code" if code else ""))
    return Risk(level=level, reasons=reasons)
