"""What a run's verification says, in words a person reads and a field a script tests: passed, failed
(the change breaks something that passed at the start), failing before and after (failures the start
commit has too, not held against the change), not run (timed out, could not start, no checks at all).
Used by the summary (terminal box and JSON) and the review's verification section."""

from __future__ import annotations

from typing import Any

from acode.pipeline.models import CheckComparison, CheckResult, Verification
from acode.pipeline.verifier import how_it_failed

# the worst status wins the headline
_ORDER = ("failed", "not_run", "failing_before", "passed")
NO_CHECKS = ("no checks ran: no test files, no ruff configuration and no pipeline.verify_commands, and no "
             "plan step named a check command")


def describe(verification: Verification | None, attempts: int = 1) -> dict[str, Any] | None:
    """``status``, a one-line ``headline``, one line per finding (``lines``) and the test ids by kind."""
    if verification is None:
        return None
    ran = [c for c in verification.checks if not c.skipped]
    found: dict[str, list[str]] = {"regressed": [], "new_failing": [], "failing_before": [], "not_run": []}
    lines: list[str] = []
    statuses = {"passed"} if ran else {"not_run"}
    if not ran:
        lines.append(NO_CHECKS if not verification.checks else
                     "no checks ran: " + "; ".join(f"`{c.command}` {c.skipped}" for c in verification.checks))
    for check in ran:
        if check.passed:
            continue
        status, said = _failed_check(check, found)
        statuses.add(status)
        lines += said
    status = next(s for s in _ORDER if s in statuses)
    return {
        "status": status,
        "headline": _headline(status, found, len(ran)),
        "passed": verification.passed,
        "attempts": attempts,
        "lines": lines,
        **found,
        "checks": [{"command": c.command, "passed": c.passed, "skipped": c.skipped, "exit_code": c.exit_code,
                    "timed_out": c.timed_out, "started": c.started,
                    "compared": c.compared.model_dump() if c.compared else None}
                   for c in verification.checks],
    }


def _failed_check(check: CheckResult, found: dict[str, list[str]]) -> tuple[str, list[str]]:
    command = f"`{check.command}`"
    if check.could_not_run:
        found["not_run"].append(check.command)
        return "not_run", [f"{command} could not run: {how_it_failed(check)}"]
    compared = check.compared
    if compared is None:
        return "failed", [f"{command} failed ({how_it_failed(check)}); not compared with the start commit"]
    found["regressed"] += compared.regressed
    found["new_failing"] += compared.new_failing
    found["failing_before"] += compared.failing_before
    lines = comparison_lines(compared)
    if compared.base_exit_code is None and compared.exit_code not in (0, None):
        lines.append(f"{command} failed and the start commit could not be run to compare: {compared.note}")
        return "failed", lines
    if compared.regressed or compared.new_failing:
        return "failed", lines
    if compared.failing_before:
        return "failing_before", lines
    if compared.exit_code == 0:
        return "passed", [f"{command} failed in the verification and passed when run again"]
    return "failing_before", lines or [f"{command} fails before and after the change"]


def comparison_lines(compared: CheckComparison) -> list[str]:
    """One line per test the comparison with the start commit names."""
    lines = [f"{t} passed at the start of the run and fails with the change" if t not in compared.at_start
             else f"{t} fails with the change and did not fail at the start ({compared.at_start[t]})"
             for t in compared.regressed]
    lines += [f"{t} (a test the change adds) fails" for t in compared.new_failing]
    lines += [f"{t} failing before and after the change (not held against it)"
              for t in compared.failing_before]
    return lines


def _headline(status: str, found: dict[str, list[str]], ran: int) -> str:
    if status == "failed":
        broken = found["regressed"] + found["new_failing"]
        return (f"FAILED: the change breaks {_count(broken)}" if broken
                else "FAILED: the checks fail and could not be compared with the start")
    if status == "not_run":
        return ("NOT RUN: " + ", ".join(f"`{c}`" for c in found["not_run"]) + " could not run"
                if found["not_run"] else "NOT RUN: no checks ran")
    before = found["failing_before"]
    if status == "failing_before":
        return f"passed apart from {_count(before)} failing before and after the change"
    return f"passed ({ran} check{'s' if ran != 1 else ''})"


def _count(tests: list[str]) -> str:
    return f"{len(tests)} test{'s' if len(tests) != 1 else ''} ({', '.join(tests[:3])}" + (
        f" and {len(tests) - 3} more)" if len(tests) > 3 else ")")
