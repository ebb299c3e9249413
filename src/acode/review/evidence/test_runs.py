"""The project's tests, run on both sides of the change.

A failing test says little on its own: it may have failed before the change too (an environment without
some dependency, a flaky test). What the change did is the difference: the same test files, the reviewed
version's, run once on the reviewed source and once on the base source. A test that passes on the base
and fails with the change is a regression the change brings (``tests/regressed``); a test that fails on
the base and passes with the change is behaviour the change fixes, and confirms it (``fixed/tests``).
Tests failing on both sides are reported and not held against the change.

Both sides run in trees extracted from git's objects (``tree_extract``; the reviewed version's tree is
the checkout only when the review reads uncommitted work), with the tree's own source first on
``PYTHONPATH`` so the tests import the code under review, not an installed copy. A pytest command also
writes a JUnit report, read per test; any other command is compared by exit code.

The tests are the branch's code, so they run in the sandbox (``acode.sandbox``: no network, read-only file
system but for the extracted trees, credentials hidden) whenever one is available. ``reviewer.run_tests:
auto`` (the default) runs them only there; ``true`` / ``--run-tests`` runs them without one when there is
none, and says so (``plan_test_run``).
"""

from __future__ import annotations

import os
import re
import shlex
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from xml.etree import ElementTree

from acode.capped_run import run_capped
from acode.errors import AcodeError
from acode.review.change.git_context import read_new_text
from acode.review.evidence.tree_extract import extract_tree
from acode.review.evidence.type_runs import TYPE_TEST_PATH, TypeContrast, contrast_types, type_check_files
from acode.review.models import ReviewContext
from acode.sandbox import Sandbox, find_sandbox
from acode.secrets import redact
from acode.test_files import is_test_path


@dataclass
class SuiteRun:
    command: str
    exit_code: int
    timed_out: bool
    output_tail: str
    outcomes: dict[str, str] | None = None  # test id -> passed | failed | error | skipped (pytest only)
    seconds: float = 0.0
    output_bytes: int = 0  # all the run wrote; only the tail is kept

    def record(self) -> dict:
        return {"command": self.command, "exit_code": self.exit_code, "timed_out": self.timed_out,
                "output_tail": self.output_tail, "seconds": round(self.seconds, 1),
                "output_bytes": self.output_bytes}


@dataclass
class SuiteContrast:
    head: SuiteRun
    base: SuiteRun | None = None  # None: there was no base to run (a new repository, an unreadable tree)
    regressed: list[str] = field(default_factory=list)  # pass on the base, fail with the change
    fixed: list[str] = field(default_factory=list)  # fail on the base, pass with the change
    failing_before: list[str] = field(default_factory=list)  # fail on both sides
    new_failing: list[str] = field(default_factory=list)  # in a test file the change adds, fail with it
    ran: list[str] = field(default_factory=list)  # the commands run on both sides, in order
    note: str = ""
    types: TypeContrast | None = None  # mypy on both sides, when the change edits annotations
    related: bool = False  # the first command ran the test files that name the changed code
    passed_both: int | None = None  # tests that pass on both sides (None: compared by exit code)
    could_not_run: str = ""  # pytest stopped before any test on both sides (usage/collection/internal error)

    def agree(self) -> bool:
        """Both sides ran to the end, every test has the same outcome on each, and some pass."""
        if self.base is None or self.head.timed_out or self.base.timed_out or self.could_not_run:
            return False
        if self.regressed or self.fixed or self.new_failing:
            return False
        return self.passed_both > 0 if self.passed_both is not None else self.head.exit_code == 0

    def record(self) -> dict:
        """What the report keeps (``ReviewResult.tests``)."""
        return {**self.head.record(), "base": self.base.record() if self.base else None,
                "regressed": self.regressed, "fixed": self.fixed, "failing_before": self.failing_before,
                "new_failing": self.new_failing, "ran": self.ran, "note": self.note,
                "types": self.types.record() if self.types else None, "related": self.related,
                "passed_both": self.passed_both, "agree": self.agree(), "could_not_run": self.could_not_run}


@dataclass
class SuitePlan:
    """Which commands run on both sides of the change, and in which sandbox (None: as the user)."""

    commands: list[str]
    sandbox: Sandbox | None
    note: str = ""  # said in the report: why there is no sandbox
    related: bool = False  # commands[0] runs the test files that name the changed code
    env: dict[str, str] | None = None  # the environment the commands start from (default: acode's own)


def plan_test_run(mode: bool | str, commands: list[str], *, use_sandbox: bool = True, related: bool = False
                  ) -> tuple[SuitePlan | None, str]:
    """(the plan, "") or (None, why the tests do not run). ``mode``: True (asked for: sandboxed when
    possible, else as the user), "auto" (only in a sandbox), False (never). ``related``: ``commands[0]``
    runs the test files that name the changed code."""
    if mode is False or not commands:
        return None, ""
    sandbox, why_not = find_sandbox() if use_sandbox else (None, "reviewer.test_sandbox is off")
    if sandbox is not None:
        return SuitePlan(commands, sandbox, related=related), ""
    if mode == "auto":
        return None, (f"not run: they would run without a sandbox ({why_not}); "
                      "--run-tests runs them anyway")
    return SuitePlan(commands, None, note=f"ran without a sandbox: {why_not}", related=related), ""


def run_tests(command: str, tree: Path, timeout: float, report: Path, sandbox: Sandbox | None = None,
              writable: Path | None = None, env: dict[str, str] | None = None) -> SuiteRun:
    """``command`` in ``tree``, in its own process group (all of it ended on timeout), with the tree's
    source first on PYTHONPATH. A pytest command also writes a JUnit report to ``report`` (outside the
    tree), read back per test. In ``sandbox`` only ``writable`` (holding the report) can be written.
    ``env``: the environment to start from (default: acode's own)."""
    report.unlink(missing_ok=True)
    full = command + (" -p no:cacheprovider --continue-on-collection-errors"
                      f" --junitxml={shlex.quote(str(report))}"
                      if _is_pytest(command) else "")
    start = os.environ if env is None else env
    env = {**start, "PYTHONPATH": os.pathsep.join(
        [str(p) for p in (tree / "src", tree) if p.is_dir()] + [start.get("PYTHONPATH", "")]).rstrip(
        os.pathsep), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = ["/bin/sh", "-c", full]
    if sandbox is not None:
        argv, env = sandbox.wrap(argv, env, cwd=tree, writable=writable or report.parent)
    started = time.monotonic()
    # stdin closed (a test reading it gets end of file, not the user's terminal); the output read with a
    # cap (a test writing 300 MB to its pipe must not grow the review by as much)
    run = run_capped(argv, cwd=tree, env=env, timeout=timeout)
    timed_out = run.returncode is None
    return SuiteRun(command=command, exit_code=124 if run.returncode is None else run.returncode,
                    timed_out=timed_out, output_tail=redact(run.output[-3000:]), outcomes=read_junit(report),
                    seconds=time.monotonic() - started, output_bytes=run.total_bytes)


def _is_pytest(command: str) -> bool:
    """A pytest command; in a compound one (`a && b`, `a; b`) the report options land on the last part,
    so that part must be pytest (`pytest -q && ruff check .` is compared by exit code)."""
    last = re.split(r"&&|\|\||;|\|", command)[-1]
    return any(word.endswith("pytest") for word in last.split()[:4])


def read_junit(report: Path) -> dict[str, str] | None:
    """Test id -> outcome from a JUnit XML report; None when there is none (or it cannot be read)."""
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return None
    outcomes = {}
    for case in root.iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}".strip(":")
        kinds = {child.tag for child in case}
        outcomes[test_id] = ("failed" if "failure" in kinds else "error" if "error" in kinds
                             else "skipped" if "skipped" in kinds else "passed")
    return outcomes


def compare(head: SuiteRun, base: SuiteRun) -> tuple[list[str], list[str], list[str]]:
    """(regressed, fixed, failing before). Per test when both runs have a report, else by exit code.
    A test counts as fixed only when it ran and failed on the base: an error there (an import the change
    adds, a base tree missing a generated file) is not evidence that the change fixes behaviour."""
    if head.outcomes is not None and base.outcomes is not None:
        bad = ("failed", "error")
        regressed = [t for t, o in head.outcomes.items() if o in bad and base.outcomes.get(t) not in bad]
        fixed = [t for t, o in head.outcomes.items() if o == "passed" and base.outcomes.get(t) == "failed"]
        before = [t for t, o in head.outcomes.items() if o in bad and base.outcomes.get(t) in bad]
        if not head.outcomes and head.exit_code not in (0, 5) and base.exit_code in (0, 5):
            regressed = ["the test command (no test ran with the change)"]
        return regressed, fixed, before
    if head.exit_code == base.exit_code or (head.exit_code != 0 and base.exit_code != 0):
        return [], [], ["the test command"] if head.exit_code != 0 else []
    if head.exit_code != 0:
        return ["the test command"], [], []
    return [], (["the test command"] if base.exit_code == 1 else []), []


def contrast(context: ReviewContext, plan: SuitePlan, timeout: float) -> SuiteContrast:
    """Run each command on the reviewed version and on the base with the reviewed version's test files,
    until one shows a difference: the related tests first, then (``commands[1]``) the whole suite, since
    a change to module-level data or a helper reaches tests that never name it."""
    commands = list(dict.fromkeys(plan.commands))
    with tempfile.TemporaryDirectory(prefix="acode-review-tests-") as tmp:
        where = {"sandbox": plan.sandbox, "writable": Path(tmp)}
        sides = {**where, "env": plan.env}  # the test runs start from the plan's environment
        left_out: list[str] = []  # symbolic links that lead outside the extracted trees
        head_tree = head_tree_of(context, Path(tmp) / "head", left_out)
        base_tree, why_not = base_tree_of(context, Path(tmp) / "base", left_out)
        own_tree: list[Path] = []  # the base with its own test files, extracted when first needed
        result = None
        for step, command in enumerate(commands):
            head = run_tests(command, head_tree, timeout, Path(tmp) / f"head-{step}.xml", **sides)
            if base_tree is None:
                note = (f"`{command}` did not finish in {timeout:g} s with the change; " if head.timed_out
                        else "")
                return SuiteContrast(head=head, ran=commands[:step + 1], related=plan.related, note=_join(
                    plan.note, f"{note}{why_not}: the tests ran on the change only", _links_note(left_out)))
            # after a hang the base gets half the limit: only a base that fast tells a hang the change
            # brings. It runs even when the whole suite hangs: a time-out the change causes is held against
            # it, and is no reason to compare nothing.
            limit = timeout / 2 if head.timed_out else timeout
            base = run_tests(command, base_tree, limit, Path(tmp) / f"base-{step}.xml", **sides)
            result = None
            if (base.timed_out or could_not_run(base)) and _touches_tests(context):
                # the change's test files (a conftest.py, a plugin, a test module) may be what stops the
                # base: run the base with its own, so that evidence the change removes counts against it
                if not own_tree:
                    own_tree.append(_extract(context, context.base_sha, Path(tmp) / "base-own"))
                own = run_tests(command, own_tree[0], limit, Path(tmp) / f"own-{step}.xml", **sides)
                result = _stopped_by_the_change(context, head, own, timeout)
            result = result or _one_side_hangs(head, base, timeout)
            if result is None and head.timed_out:  # neither side finished: nothing to compare
                why = (f"`{command}` did not finish in {timeout:g} s with the change, nor in "
                       f"{timeout / 2:g} s on the base (reviewer.test_timeout_seconds, or a narrower "
                       "reviewer.test_command)")
                result = SuiteContrast(head=head, base=base, ran=commands[:step + 1], related=plan.related,
                                       note=_join(plan.note, why))
                break
            result = result or _sides(context, head, base)
            result.ran = commands[:step + 1]
            result.related = plan.related
            result.note = _join(plan.note, "the related tests showed no difference, so the whole suite ran"
                                if step else "", result.note)
            if result.regressed or result.fixed or result.new_failing:
                break
        assert result is not None, "no test command"
        result.note = _join(result.note, _links_note(left_out))
        files = type_check_files(context, head_tree) if base_tree is not None else []
        if files:  # a change to annotations: the type checker tells what the tests cannot
            result.types = contrast_types(files, head_tree, base_tree, timeout=timeout, **where)
        return result


def _touches_tests(context: ReviewContext) -> bool:
    """The change adds, edits or deletes test files (which the base runs with: ``_overlay_tests``)."""
    return any(is_test_path(f.path) and f.change_type != "binary" for f in context.files)


def _stopped_by_the_change(context: ReviewContext, head: SuiteRun, own: SuiteRun, timeout: float
                           ) -> SuiteContrast | None:
    """With the change's test files the base did not finish or tested nothing, and ``own`` is the base run
    with its own test files. When that one tested something, what the change's test files took away is the
    change's doing: no run that finishes with it, no test that runs with it, or tests that fail with it
    and pass on the base. None when the base gives nothing either way, or nothing differs."""
    tested = (own.exit_code == 0 if own.outcomes is None
              else any(o == "passed" for o in own.outcomes.values()))
    if own.timed_out or could_not_run(own) or not tested:
        return None
    changed = [f.path for f in context.files if is_test_path(f.path) and f.change_type != "binary"]
    files = ", ".join(changed[:3]) + (f" and {len(changed) - 3} more" if len(changed) > 3 else "")
    base_side = (f"not on the base with the change's test files ({files}) either; the base with its own "
                 f"test files finished in {own.seconds:.0f} s")
    if head.timed_out:
        why = f"`{head.command}` did not finish in {timeout:g} s with the change, " + base_side
    elif could_not_run(head):
        why = (f"`{head.command}` ran no test with the change ({could_not_run(head)}), "
               + base_side.replace("finished in", "ran tests in"))
    else:
        if head.outcomes is not None and own.outcomes is not None:
            broken = [t for t, o in head.outcomes.items()
                      if o in ("failed", "error") and own.outcomes.get(t) == "passed"]
        else:
            broken = ["the test command"] if head.exit_code != 0 else []
        if not broken:
            return None
        return SuiteContrast(head=head, base=own, regressed=broken, note=(
            "compared with the base run with its own test files: with the change's test files ("
            f"{files}) the base did not finish or ran no test"))
    return SuiteContrast(head=head, base=own, regressed=[why], note=(
        "the change's test files stop the tests on both sides; evidence the change makes unavailable "
        "counts against it"))


def _one_side_hangs(head: SuiteRun, base: SuiteRun, timeout: float) -> SuiteContrast | None:
    """When one side runs out of time and the other finishes within half the limit, the difference is the
    change's: tests that no longer finish are a regression, tests that finish only with the change confirm
    it (a hang it removes). Within half the limit, so a suite near the limit on a busy machine is not read
    as a change. None when both or neither finished, or the finishing side was not that fast."""
    if head.timed_out == base.timed_out or min(head.seconds, base.seconds) > timeout / 2:
        return None
    limit = f"ran out of time ({timeout:g} s)"
    if head.timed_out:
        why = f"{head.command} ({limit} with the change; {base.seconds:.0f} s on the base)"
        return SuiteContrast(head=head, base=base, regressed=[why])
    why = f"{head.command} ({limit} on the base; {head.seconds:.0f} s with the change)"
    failing = sorted(t for t, o in (head.outcomes or {}).items() if o in ("failed", "error"))
    note = (f"{len(failing)} test(s) fail with the change and are not compared, the base did not finish: "
            + ", ".join(failing[:3])) if failing else ""
    return SuiteContrast(head=head, base=base, fixed=[why], note=note)


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def head_tree_of(context: ReviewContext, dest: Path, left_out: list[str] | None = None) -> Path:
    """The reviewed version's tree: extracted to ``dest``, or the checkout for uncommitted work. The
    symbolic links not written (they lead outside the tree) are added to ``left_out``."""
    return context.root if context.head_rev is None else _extract(context, context.head_rev, dest, left_out)


def base_tree_of(context: ReviewContext, dest: Path, left_out: list[str] | None = None
                 ) -> tuple[Path | None, str]:
    """(the base extracted to ``dest`` with the reviewed version's test files over it, "") or (None, why
    there is none)."""
    if not context.base_sha:
        return None, "no base revision"
    try:
        tree = _extract(context, context.base_sha, dest, left_out)
    except (AcodeError, OSError) as exc:
        return None, f"the base could not be extracted ({exc})"
    _overlay_tests(context, tree)
    return tree, ""


# pytest's exit codes for a run that stopped before testing: interrupted (collection errors), internal
# error, usage error (a conftest that does not import, an unknown option, no such file)
_NOT_RUN_EXITS = (2, 3, 4)
_ERROR_LINE = re.compile(r"^(E\s+\S.*|\S*(Error|ERROR|error)\b.*)$")


def could_not_run(run: SuiteRun) -> str:
    """The error line of a pytest run that stopped before any test ran ('' when tests ran)."""
    if not _is_pytest(run.command) or run.timed_out or run.exit_code not in _NOT_RUN_EXITS:
        return ""
    if any(o in ("passed", "failed") for o in (run.outcomes or {}).values()):
        return ""
    lines = [line.strip() for line in run.output_tail.splitlines() if _ERROR_LINE.match(line.strip())]
    detail = next((line for line in reversed(lines) if line.startswith("E ")), lines[-1] if lines else "")
    return (detail.removeprefix("E").strip() or "no error line")[:200] + f" (pytest exit {run.exit_code})"


def _sides(context: ReviewContext, head: SuiteRun, base: SuiteRun) -> SuiteContrast:
    unrunnable = could_not_run(head)
    if unrunnable and could_not_run(base):  # neither side tested anything: nothing fails, nothing agrees
        return SuiteContrast(head=head, base=base, could_not_run=unrunnable)
    regressed, fixed, before = compare(head, base)
    added = added_tests(context)
    # only where the environment runs tests at all: some test passes with the change
    runs = any(o == "passed" for o in (head.outcomes or {}).values())
    new = [t for t in before if t.split("::")[0].startswith(added)] if added and runs else []
    both = (None if head.outcomes is None or base.outcomes is None else
            sum(o == "passed" and base.outcomes.get(t) == "passed" for t, o in head.outcomes.items()))
    return SuiteContrast(head=head, base=base, regressed=regressed, fixed=fixed, new_failing=new,
                         failing_before=[t for t in before if t not in new], passed_both=both)


def added_tests(context: ReviewContext) -> tuple[str, ...]:
    """The JUnit prefixes of the test files the change adds. A type test it adds
    (tests/mypy_test_cases/...) is the type checker's to judge, not pytest's."""
    return tuple(_module(f.path) for f in context.files if f.change_type == "added"
                 and is_test_path(f.path) and not TYPE_TEST_PATH.search(f.path))


def _module(path: str) -> str:
    """The JUnit class name prefix of a test file's tests: tests/test_calc.py -> tests.test_calc"""
    return path.removesuffix(".py").replace("/", ".")


def _extract(context: ReviewContext, rev: str, dest: Path, left_out: list[str] | None = None) -> Path:
    skipped = extract_tree(context.root, rev, dest)
    if left_out is not None:
        left_out += [path for path in skipped if path not in left_out]
    return dest


def _links_note(left_out: list[str]) -> str:
    if not left_out:
        return ""
    return (f"{len(left_out)} symbolic link(s) leading outside the tree left out of the test runs: "
            + ", ".join(left_out[:5]) + (" ..." if len(left_out) > 5 else ""))


def _overlay_tests(context: ReviewContext, tree: Path) -> None:
    """The reviewed version's test files (added, edited or deleted by the change) over the base tree."""
    for changed in context.files:
        if not is_test_path(changed.path) or changed.change_type == "binary":
            continue
        target = tree / changed.path
        text = None if changed.change_type == "deleted" else read_new_text(context, changed.path)
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
