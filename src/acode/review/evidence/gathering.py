"""Deterministic evidence, collected before the model judges: ruff's maintained rules on the added lines
of Python files (``ruff``), protections a change removes or weakens (``structural``), secrets in added
lines, whether tests were touched, earlier commits the change reverses
(``history``: a fix put back), and optionally the test command's result.

Everything here reads the whole diff of every file (``ChangedFile.whole_diff``), never the copy cut at
``max_diff_chars`` for the model: a risky call or a secret at the end of a long diff is found all the same.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from acode.config.review import RepoRule
from acode.review.change.diff import added_lines, new_position
from acode.review.change.git_context import read_new_text, read_old_text
from acode.review.evidence.added_secrets import secret_findings
from acode.review.evidence.behaviour.diff import BehaviourDiff, Limits, run_behaviour_diff
from acode.review.evidence.behaviour.findings import behaviour_findings
from acode.review.evidence.history import history_findings
from acode.review.evidence.repo_rules import rule_findings
from acode.review.evidence.ruff import RuffHit, compare_versions
from acode.review.evidence.structural import added_helpers, structural_changes
from acode.review.evidence.suggested_fixes import build_fix
from acode.review.evidence.test_runs import SuiteContrast, SuitePlan, contrast
from acode.review.evidence.type_runs import TypeContrast
from acode.review.models import ChangedFile, Finding, ReviewContext, SuggestedFix, TextEdit
from acode.sandbox import Sandbox
from acode.secrets import redact
from acode.test_files import is_test_path

log = logging.getLogger("acode.review")

_CODE_SUFFIXES = {".py", ".js", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt", ".rb", ".c", ".cc",
                  ".cpp", ".h", ".hpp", ".cs", ".php", ".swift", ".scala"}
# structural finding kind -> severity. A guard that raises, an assert, a check call, a lock, a finally block
# and an exception handler protect against misuse: losing one is high. An early-return guard is as often
# logic as protection (an "excess logic" fix removes one), and a plain `with` block is resource handling:
# medium. A guard, assert or raise that tests none of the function's parameters or locals (only the
# environment, e.g. `if shutil.which("git") is None`) is not input validation: medium.
STRUCTURAL_SEVERITY = {"guard-raise": "high", "assert": "high", "raise": "high", "call": "high",
                       "lock": "high", "finally": "high", "except": "high", "guard-return": "medium",
                       "with": "medium"}
_INPUT_KINDS = {"guard-raise", "assert", "raise"}


def structural_severity(what: str, on_input: bool) -> str:
    if what in _INPUT_KINDS and not on_input:
        return "medium"
    return STRUCTURAL_SEVERITY[what]


@dataclass
class Evidence:
    findings: list[Finding] = field(default_factory=list)
    tests: dict | None = None
    behaviour: BehaviourDiff | None = None


@dataclass
class BehaviourPlan:
    """Where and how long the behavioural diff runs (sandbox None: as the user, only when asked)."""

    sandbox: Sandbox | None
    limits: Limits
    progress: Callable[[str], None] = lambda _: None


def gather_evidence(context: ReviewContext, *, tests: SuitePlan | None = None,
                    test_timeout: float = 120.0, ran: Sequence[SuiteContrast] = (),
                    behaviour: BehaviourPlan | None = None, tested_by: Sequence[str] = (),
                    rules: Sequence[RepoRule] = ()) -> Evidence:
    """``tests``: commands run on both sides of the change in turn until one shows a difference. ``ran``:
    such runs the caller made already (the checks `acode run`'s verifier compared with its start).
    ``behaviour``: run the old and new version of each changed function on the same inputs.
    ``tested_by``: the project's test files that name the changed code (no ``tests/not-touched`` then).
    ``rules``: the project's ast-grep rules (reviewer.rules)."""
    evidence = Evidence()
    for changed in context.files:
        if changed.change_type in ("binary", "deleted"):
            continue
        evidence.findings += secret_findings(changed.path, added_lines(changed.whole_diff))
    evidence.findings += ruff_findings(context)
    evidence.findings += structural_findings(context)
    evidence.findings += history_findings(context)
    evidence.findings += rule_findings(context, list(rules))
    evidence.findings += _untested(context, tested_by)
    outcomes = list(ran) + ([contrast(context, tests, test_timeout)] if tests else [])
    for outcome in outcomes:
        evidence.findings += findings_of_tests(outcome) + findings_of_types(outcome.types)
    if outcomes:  # the report keeps one run: the first that shows what the change breaks, else the last
        evidence.tests = next((o for o in outcomes if o.regressed or o.new_failing), outcomes[-1]).record()
    if behaviour:
        evidence.behaviour = run_behaviour_diff(context, behaviour.sandbox, behaviour.limits,
                                                behaviour.progress)
        evidence.findings += behaviour_findings(evidence.behaviour, context.effective_intent())
    if tests_confirm(evidence.findings):
        evidence.findings = [_confirmed_undo(f) if f.rule == "history/undoes-fix" else f
                             for f in evidence.findings]
    return evidence


def _confirmed_undo(finding: Finding) -> Finding:
    """An undone fix whose undoing the project's tests confirm (a test fails with the fix and passes without
    it): the earlier "fix" broke what the tests check, so taking it out is a correction a person should
    still see (medium), not a fixed bug put back (high)."""
    if finding.severity != "high":
        return finding
    return finding.model_copy(update={
        "severity": "medium",
        "message": finding.message + "; the project's tests confirm the change (they fail on the base and "
                                     "pass with it)"})


# calls whose addition is a fix the likelihood contrast cannot judge
# (it reads rarer, safer calls as less likely)
FIX_CALLS = frozenset({"compare_digest", "escape", "quote", "secure_filename", "is_relative_to", "commonpath",
                       "safe_load", "literal_eval"})


def fixed_lines(findings: list[Finding]) -> dict[str, set[int]]:
    """Per file, the new lines where the evidence shows the change fixing something (``fixed/`` findings)."""
    out: dict[str, set[int]] = {}
    for finding in findings:
        if finding.rule.startswith("fixed/") and finding.file and finding.line:
            out.setdefault(finding.file, set()).add(finding.line)
    return out


def cut_notes(context: ReviewContext) -> dict[str, str]:
    """For the report: each file whose diff the model saw only in part."""
    notes = {}
    for changed in context.files:
        if changed.truncated:
            seen = changed.diff.rsplit("... [", 1)[0]
            total = len(changed.whole_diff)
            notes[changed.path] = (f"the model saw the first {len(seen):,} of {total:,} characters of the "
                                   "diff (reviewer.max_diff_chars); the evidence read all "
                                   f"{len(added_lines(changed.whole_diff))} added lines")
    return notes


def _python_files(context: ReviewContext) -> list[ChangedFile]:
    return [f for f in context.files if f.path.endswith(".py") and f.change_type not in ("deleted", "binary")]


def ruff_findings(context: ReviewContext) -> list[Finding]:
    """Ruff's mapped rules (``ruff_rules.RULES``) on the added lines of each changed Python file, only where
    the finding is new against the base version."""
    targets: dict[str, tuple[str | None, str, set[int]]] = {}
    for changed in _python_files(context):
        lines = {n for n, _ in added_lines(changed.whole_diff)}
        new = read_new_text(context, changed.path) if lines else None
        if new is not None:
            targets[changed.path] = (read_old_text(context, changed), new, lines)
    findings = []
    introduced, resolved = compare_versions(targets)
    for path, hits in resolved.items():
        diff = next(f.whole_diff for f in context.files if f.path == path)
        for hit, rule, text in hits:
            if rule.severity != "high" or rule.dimension != "safety":
                continue
            line = new_position(diff, hit.line)
            findings.append(Finding(
                dimension="safety", source="ruff", rule=f"fixed/ruff/{hit.code}", severity="info",
                message=f"the change removes a {hit.code} finding of the old code ({rule.why})",
                file=path, line=line, end_line=line, quote=redact(text.strip()), confidence=1.0,
            ))
    for path, hits in introduced.items():
        for hit, rule, text in hits:
            findings.append(Finding(
                dimension=rule.dimension, source="ruff", rule=f"ruff/{hit.code}", severity=rule.severity,  # type: ignore[arg-type]
                message=f"{hit.message} ({rule.why})", file=path, line=hit.line, end_line=hit.end_line,
                quote=redact(text.strip()), suggestion=hit.fix, confidence=1.0,
                fix=_ruff_fix(targets[path][1], hit),
            ))
    return findings


def _ruff_fix(text: str, hit: RuffHit) -> SuggestedFix | None:
    """Ruff's own fix of a finding, as the lines it replaces (None: ruff has none, or it does not fit). Not
    kept when its text holds what the redaction hides: reports and the store keep only redacted text, and a
    fix read back from them would write the redaction into the code."""
    if not hit.edits:
        return None
    edits = [TextEdit(line=a, column=b, end_line=c, end_column=d, content=e) for a, b, c, d, e in hit.edits]
    fix = build_fix(text, edits, applicability=hit.applicability, message=hit.fix)
    return fix if fix is not None and redact(fix.replacement) == fix.replacement else None


def structural_findings(context: ReviewContext) -> list[Finding]:
    """Guards, asserts, raises, check calls, locks, with/finally blocks and exception handlers that the change
    removes or weakens in a function present before and after it (``structural``)."""
    versions = {}
    helpers: dict[str, set[str]] = {}  # functions the change adds in any file: a check may have moved there
    for changed in _python_files(context):
        old, new = read_old_text(context, changed), read_new_text(context, changed.path)
        if new is not None:
            helpers.update(added_helpers(old, new))
            # a test's asserts check the code, they do not protect it: tests are not compared
            if (old is not None and changed.change_type in ("modified", "renamed")
                    and not is_test_path(changed.path)):
                versions[changed.path] = (changed, old, new)
    findings = []
    for changed, old, new in versions.values():
        # the same comparison the other way round: protections the change adds (a fix, when it is one of
        # FIX_CALLS or a lock); old_line is then a line of the new version
        for added in structural_changes(new, old):
            if added.kind == "removed" and (added.what == "lock" or (
                    added.what == "call" and added.key.rsplit(".", 1)[-1] in FIX_CALLS)):
                findings.append(Finding(
                    dimension="safety", source="structural", rule=f"fixed/structural/{added.what}",
                    severity="info",
                    message=f"the change adds `{redact(added.old_text)}` to {added.function}()",
                    file=changed.path, line=added.old_line, end_line=added.old_line,
                    quote=redact(added.old_text), confidence=1.0,
                ))
        for change in structural_changes(old, new, helpers):
            line = new_position(changed.whole_diff, change.old_line) or change.new_line
            findings.append(Finding(
                dimension="safety", source="structural", rule=f"structural/{change.kind}-{change.what}",
                severity=structural_severity(change.what, change.on_input),  # type: ignore[arg-type]
                message=f"{change.detail}: `{redact(change.old_text)}` (old line {change.old_line})",
                file=changed.path, line=line, end_line=line, quote=redact(change.old_text),
                suggestion="keep the check (or move it, visibly, to where it still runs); if removing it is "
                           "intended, say why in the commit message",
                confidence=1.0,
            ))
    return findings


def _untested(context: ReviewContext, tested_by: Sequence[str]) -> list[Finding]:
    """``tests/not-touched``: changed code no test covers, neither a test the change adds or edits nor an
    existing test that names the changed code. A refactor under existing tests is not untested (those tests
    run on both sides of it); new code with no test anywhere is."""
    code = [f for f in context.files if PurePosixPath(f.path).suffix in _CODE_SUFFIXES
            and not is_test_path(f.path)
            and f.change_type != "deleted"]
    if not code or tested_by or any(is_test_path(f.path) for f in context.files):
        return []
    return [Finding(
        dimension="completeness", source="tests", rule="tests/not-touched", severity="low",
        message=f"code changed in {len(code)} file(s) that no test names, and no test file was added or "
                "changed",
        suggestion="add or update a test that covers the change", grounding="none", confidence=1.0,
    )]


def findings_of_tests(tests: SuiteContrast) -> list[Finding]:
    """What the test runs show about the change: tests it breaks count (critical), tests it makes pass
    confirm it (``fixed/tests``), tests that fail on both sides are noted and not held against it."""
    head, out = tests.head, []
    where = {"dimension": "intent_alignment", "source": "tests", "confidence": 1.0}
    if tests.regressed:
        out.append(Finding(
            **where, rule="tests/regressed", severity="critical",
            message=f"{_count(tests.regressed)} pass on the base and fail with the change: "
                    + _names(tests.regressed),
            suggestion="the change breaks behaviour its tests check; fix the code (or the test, if the "
                       "behaviour is meant to change)"))
    elif tests.fixed:
        out.append(Finding(
            **where, rule="fixed/tests", severity="info",
            message=f"{_count(tests.fixed)} fail on the base and pass with the change: "
                    + _names(tests.fixed)))
    if tests.new_failing:
        out.append(Finding(
            dimension="completeness", source="tests", rule="tests/failed", severity="high",
            message=f"{_count(tests.new_failing)} the change adds fail with it: " + _names(tests.new_failing),
            suggestion="make the new tests pass before merging", confidence=1.0))
    if tests.could_not_run:  # neither side tested anything: not a failing test, not agreement
        out.append(Finding(
            dimension="completeness", source="test-command", rule="tests/could-not-run", severity="info",
            message=f"tests could not run: {tests.could_not_run}, on both sides; nothing compared",
            confidence=1.0))
    elif head.timed_out:  # neither side's outcome is known: said, not held against the change
        out.append(Finding(
            dimension="completeness", source="test-command", rule="tests/timeout", severity="info",
            message=tests.note or f"the test command `{head.command}` did not finish", confidence=1.0))
    elif tests.base is None and head.exit_code != 0:
        out.append(Finding(
            dimension="completeness", source="test-command", rule="tests/failed", severity="high",
            message=f"the test command `{head.command}` failed (exit {head.exit_code}); {tests.note}",
            suggestion="make the tests pass before merging", confidence=1.0))
    elif tests.failing_before:
        out.append(Finding(
            dimension="completeness", source="tests", rule="tests/failing-before", severity="info",
            message=f"{_count(tests.failing_before)} fail on the base too (not held against the change): "
                    + _names(tests.failing_before), confidence=1.0))
    return out


def findings_of_types(types: TypeContrast | None) -> list[Finding]:
    """Type errors the change brings (in a type test: the typed API regressed, high; in the code: medium),
    or type-test errors it removes without adding any (a typing fix, confirmed)."""
    if types is None:
        return []
    in_tests = [e for e in types.introduced if is_test_path(e.split(": ", 1)[0])]
    in_code = [e for e in types.introduced if e not in in_tests]
    out = []
    if in_tests:
        out.append(Finding(
            dimension="intent_alignment", source="types", rule="types/regressed", severity="high",
            message=f"mypy: {_count(in_tests, 'type-test error')} with the change and not on the base: "
                    + _names(in_tests, 2),
            suggestion="the change breaks what the project's type tests state about its API", confidence=1.0))
    if in_code:
        out.append(Finding(
            dimension="code_quality", source="types", rule="types/new-error", severity="medium",
            message=f"mypy: {_count(in_code, 'new type error')}: " + _names(in_code, 2), confidence=1.0))
    fixed = [e for e in types.removed if is_test_path(e.split(": ", 1)[0])]
    if fixed and not types.introduced:
        out.append(Finding(
            dimension="intent_alignment", source="types", rule="fixed/types", severity="info",
            message=f"mypy: {_count(fixed, 'type-test error')} of the base gone with the change: "
                    + _names(fixed, 2), confidence=1.0))
    return out


def _count(items: list[str], what: str = "test") -> str:
    return f"{len(items)} {what}{'s' if len(items) != 1 else ''}"


def _names(tests: list[str], shown: int = 3) -> str:
    more = f" and {len(tests) - shown} more" if len(tests) > shown else ""
    return ", ".join(tests[:shown]) + more


def tests_break(findings: list[Finding]) -> bool:
    """The change breaks tests that pass on the base (critical: it is rejected on that whatever else the
    review finds)."""
    return any(f.rule == "tests/regressed" for f in findings)


def tests_confirm(findings: list[Finding]) -> bool:
    """The change makes tests pass that failed before it (or type tests check that did not), and breaks
    none."""
    rules = {f.rule for f in findings}
    return bool({"fixed/tests", "fixed/types"} & rules) and not {"tests/regressed", "types/regressed"} & rules
