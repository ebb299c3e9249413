"""The fixer's behaviour on a fixed set of fixes, byte for byte (issue 53: a refactoring of agent/fixing
must not change it): every prompt, reply, candidate written, test run, answer and file left, against the
record stored in fixing_record.json. A change that means to change behaviour rewrites the record
(FIXING_RECORD_UPDATE=1) and shows its diff in review; tests/helpers/fixing_record.py says what is kept."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from tests.helpers.fixing_calc import BUGGY, FIXED, REQUEST, TESTS, reply, session
from tests.helpers.fixing_project import fixing_repo, send
from tests.helpers.fixing_project import reply as project_reply
from tests.helpers.fixing_record import FixingRecord, stable
from tests.helpers.fixing_replies import diff, echo
from tests.helpers.repos import make_git_repo
from tests.helpers.spectrum_project import REPORT, STATS
from tests.helpers.spectrum_project import REQUEST as SPECTRUM_REQUEST
from tests.helpers.spectrum_project import TESTS as SPECTRUM_TESTS

import acode
from acode.llm.scripted import ScriptedModel

STORED = Path(__file__).with_name("fixing_record.json")
ACODE_SOURCE = str(Path(acode.__file__).parent)


def _calc(root: Path, replies: list[str], calc: str = BUGGY, **fix) -> None:
    project = make_git_repo(root / "repo", {"calc.py": calc, "test_calc.py": TESTS})
    s = session(project, ScriptedModel(replies), **fix)
    s.send(REQUEST)
    s.close()


def whole_file_thread(root: Path, monkeypatch) -> None:
    """The one call, the fixer's framing, the failure fed back: the third is the fix."""
    wrong = [BUGGY.replace("a - b", op) for op in ("a * b", "a ** b")]
    _calc(root, [reply(wrong[0]), reply(wrong[1]), reply(FIXED)])


def every_candidate_fails(root: Path, monkeypatch) -> None:
    """Two attempts, a candidate that passes more tests kept, and the run's end."""
    wrong = BUGGY.replace("a - b", "b - a")
    _calc(root, [reply(BUGGY), reply(wrong), "never asked"], BUGGY.replace("2 * x", "3 * x"), max_attempts=2)


def line_edits_then_an_edit_without_a_model(root: Path, monkeypatch) -> None:
    """The one call echoes, two line asks write wrong lines, a one-token edit is the fix."""
    wrong = [diff("    return a - b", "    return a * b"), diff("    return a - b", "    return b - a")]
    _calc(root, [echo(), *wrong, "never asked"], line_edit_calls=2, mutants=24, crash_edits=6)


def suspects_on_a_real_project(root: Path, monkeypatch) -> None:
    """The test spectrum's suspects, each asked about alone, its reply merged into its file."""
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": SPECTRUM_TESTS}
    project = fixing_repo(root, monkeypatch, files)
    range_line = 'def range_line(text):\n    return f"range {spread(parse(text))}"\n'
    model = ScriptedModel([
        project_reply("src/tool/report.py", REPORT),
        project_reply("src/tool/report.py", range_line),
        project_reply("src/tool/stats.py", "def spread(values):\n    return max(values) - min(values)\n"),
    ])
    send(project, model, SPECTRUM_REQUEST, line_edit_calls=0, max_model_calls=1, token_budget=0.01)


SCENARIOS = [whole_file_thread, every_candidate_fails, line_edits_then_an_edit_without_a_model,
             suspects_on_a_real_project]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
def test_the_fixer_does_what_the_stored_record_says(scenario, tmp_path, monkeypatch):
    root = tmp_path / "work"
    root.mkdir()
    record = FixingRecord(root)
    record.install(monkeypatch)
    scenario(root, monkeypatch)
    got = json.loads(record.text().replace(sys.executable, "<python>").replace(ACODE_SOURCE, "<acode>"))
    stored = json.loads(STORED.read_text(encoding="utf-8")) if STORED.exists() else {}
    if os.environ.get("FIXING_RECORD_UPDATE") == "1":
        stored[scenario.__name__] = got
        STORED.write_text(json.dumps(stored, indent=1, ensure_ascii=False, sort_keys=True) + "\n",
                          encoding="utf-8")
    assert stable(got) == stable(stored[scenario.__name__])
