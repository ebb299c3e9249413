"""The named tests' files, run whole once before any edit: the neighbours check's baseline (neighbours.py)
and, through the recording runner, the test spectrum (spectrum.py). One run serves both."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from acode.agent.fixing.detect import FixPlan
from acode.agent.fixing.localise.spectrum import Suspect, recorded_failures, spectrum_command, suspects
from acode.agent.fixing.neighbours import NeighbourCheck, files_command
from acode.agent.fixing.outcome import TestOutcome, failing_ids
from acode.command_sandbox import shared_scratch

NEIGHBOURS = "run the named tests' files whole"
NEIGHBOURS_TRACED = NEIGHBOURS + ", recording which functions each test executes"
# command, time limit, description -> what it printed and its seconds, or None when it was refused
RunTests = Callable[[str, float, str], "tuple[TestOutcome, float] | None"]


def files_run(run: RunTests, plan: FixPlan, before: TestOutcome, workspace: Path, limit: float, *,
              check_neighbours: bool, spectrum: bool,
              time_factor: float) -> tuple[NeighbourCheck | None, list[Suspect]]:
    """When the command names tests inside files: the neighbours check (its runs may take ``time_factor``
    times this run's seconds) and the spectrum's suspects. Each run (traced or not) may take ``limit``
    seconds."""
    command = files_command(plan.test_command, plan.tests)
    if command is None or not (check_neighbours or spectrum):
        return None, []
    # in the shared scratch folder: a sandboxed run's own /tmp is private (acode.command_sandbox)
    with tempfile.TemporaryDirectory(prefix="acode-spectrum-", dir=shared_scratch()) as folder:
        recorded = Path(folder) / "spectrum.json"
        traced = spectrum_command(command, recorded) if spectrum else None
        done = run(traced, limit, NEIGHBOURS_TRACED) if traced else None
        # the runner writes its record last: without it (no pytest there, the runner broke) the run's
        # output is no baseline, and the files run again as they are; nor when a named test that fails
        # passed while traced (python-dotenv asks sys.gettrace() whether a debugger runs it). The record
        # names every failure; the output may be cut to the tool's budget (markdown: 194 failing tests)
        failed = recorded_failures(recorded) if done else None
        done = done if failed is not None and set(failing_ids(before.output)) <= failed else None
        found = suspects(recorded, workspace, plan.tests) if done else []
    if not check_neighbours:
        return None, found
    if done is None:
        failed, done = frozenset(), run(command, limit, NEIGHBOURS)
    if done is None:
        return None, found
    return NeighbourCheck(command, done[0], max(limit, time_factor * done[1]), failed or frozenset()), found
