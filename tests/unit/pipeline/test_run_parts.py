"""The pipeline's parts without a model: git facts, verifier checks, stores and metrics."""

from __future__ import annotations

from tests.helpers.run_helpers import make_repo

from acode.pipeline import gitops
from acode.pipeline.metrics import compute_metrics
from acode.pipeline.verifier import project_checks, run_check, step_command_refusal
from acode.store.audit import AuditLog
from acode.store.summaries import SummaryStore

PREFIXES = ["pytest", "python -m pytest", "ruff"]


def test_changes_since_counts_new_modified_deleted_and_ignores_acode(tmp_path):
    root = make_repo(tmp_path / "repo")
    start = gitops.require_repository(root)
    (root / "util.py").write_text("def add(a, b):\n    return a + b + 0\n\nX = 1\n")
    (root / "README.md").unlink()
    (root / "new.py").write_text("a = 1\nb = 2\n")
    (root / ".acode").mkdir()
    (root / ".acode" / "acode.db").write_text("not a change")
    changes = {c.path: c for c in gitops.changes_since(root, start)}
    assert set(changes) == {"util.py", "README.md", "new.py"}
    assert (changes["util.py"].change_type, changes["util.py"].additions, changes["util.py"].deletions) == (
        "modified",
        3,
        1,
    )
    assert (changes["README.md"].change_type, changes["README.md"].deletions) == ("deleted", 1)
    assert (changes["new.py"].change_type, changes["new.py"].additions) == ("added", 2)
    assert "+b = 2" in gitops.diff_since(root, start)
    assert gitops.git(root, "diff", "--cached", "--name-only") == ""  # the user's index is untouched
    assert gitops.dirty_paths(root) and ".acode/acode.db" not in gitops.dirty_paths(root)


def test_changed_files_are_the_reviews_files_with_their_diffs(tmp_path):
    root = make_repo(tmp_path / "repo")
    start = gitops.require_repository(root)
    (root / "util.py").write_text("def add(a, b):\n    return a + b + 0\n\nX = 1\n")
    (root / "even.py").write_text("def is_even(n):\n    return n % 2 == 0\n")
    files = {f.path: f for f in gitops.changed_files(root, start, max_diff_chars=60)}
    assert {p: f.change_type for p, f in files.items()} == {"util.py": "modified", "even.py": "added"}
    assert "+def is_even(n):" in files["even.py"].whole_diff
    cut = [f for f in files.values() if f.truncated]
    assert cut and all(f.full_diff and f.diff != f.full_diff for f in cut)  # the model sees the cut one

def test_fingerprint_tells_which_files_a_step_changed(tmp_path):
    root = make_repo(tmp_path / "repo")
    start = gitops.require_repository(root)
    (root / "a.py").write_text("1\n")
    before = gitops.fingerprint(root, start)
    (root / "a.py").write_text("2\n")
    (root / "b.py").write_text("3\n")
    assert gitops.files_changed_between(before, gitops.fingerprint(root, start)) == ["a.py", "b.py"]


def test_project_checks_detect_pytest_and_ruff_or_use_configured(tmp_path):
    root = make_repo(tmp_path / "repo")
    assert project_checks(root, None) == []
    (root / "tests").mkdir()
    (root / "tests" / "test_x.py").write_text("def test_x():\n    assert True\n")
    (root / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    assert [c for c, _ in project_checks(root, None)] == ["python -m pytest -q", "python -m ruff check ."]
    assert project_checks(root, ["make check", " "]) == [("make check", True)]


def test_a_check_that_reads_input_gets_end_of_file_not_the_users_terminal(tmp_path, idle_stdin):
    check = run_check(tmp_path, "read line || echo 'end of file'", "project", timeout=10, shell=True)
    assert not check.timed_out and "end of file" in check.output


def test_run_check_reports_exit_code_and_output(tmp_path):
    root = make_repo(tmp_path / "repo")
    (root / "test_fail.py").write_text("def test_fail():\n    assert 1 == 2\n")
    failed = run_check(root, "python -m pytest -q", "project", timeout=60, shell=False)
    assert not failed.passed and failed.exit_code == 1 and "assert 1 == 2" in failed.output
    slow = run_check(root, "sleep 5", "project", timeout=0.5, shell=True)
    assert not slow.passed and slow.timed_out and slow.exit_code is None and "timed out" in slow.output
    assert not (root / ".pytest_cache").exists()


def test_model_written_check_commands_are_limited():
    assert step_command_refusal("pytest -q tests/test_util.py", PREFIXES) == ""
    assert "not an allowed" in step_command_refusal("rm -rf /", PREFIXES)
    assert "shell syntax" in step_command_refusal("pytest; rm -rf /", PREFIXES)
    assert "not an allowed" in step_command_refusal("pytesting", PREFIXES)


def _summary(session: str, status: str, cycles: int, dims: list[list[str]], override=None) -> dict:
    reviews = [
        {
            "cycle": i + 1,
            "decision": "REJECTED",
            "levels": {},
            "issue_dimensions": d,
            "review_id": None,
            "partial": False,
        }
        for i, d in enumerate(dims)
    ]
    return {
        "session_id": session,
        "task": "t",
        "status": status,
        "decision": status.upper(),
        "exit_code": 0,
        "cycles": cycles,
        "started_at": f"2026-01-0{cycles}T00:00:00+00:00",
        "ended_at": None,
        "duration_s": 1.0,
        "reviews": reviews,
        "override": override,
    }


def test_metrics_and_summary_store(tmp_path):
    store = SummaryStore(tmp_path / "acode.db")
    store.save(_summary("run-a", "approved", 1, []))
    store.save(_summary("run-b", "approved", 3, [["safety", "code_quality"], ["safety"]]))
    store.save(_summary("run-c", "rejected", 2, [["safety"], ["completeness"]], override=None))
    store.save(_summary("run-d", "approved", 2, [["code_quality"]], override={"reason": "ok"}))
    metrics = compute_metrics(store.list())
    assert metrics["runs"] == 4 and metrics["approval_rate"] == 0.75 and metrics["overridden"] == 1
    assert metrics["first_cycle_approval_rate"] == 0.25 and metrics["cycles_per_task"] == 2.0
    assert metrics["common_issue_categories"][0] == {"category": "safety", "count": 3}
    assert store.get("run-b")["cycles"] == 3 and store.get("run-") is None  # ambiguous prefix
    assert store.latest()["session_id"] == "run-b"
    assert compute_metrics([])["approval_rate"] is None


def test_audit_log_keeps_entries_newest_first(tmp_path):
    audit = AuditLog(tmp_path / "acode.db")
    audit.append("human_decision", "run-a", "approve")
    audit.append(
        "override", "run-b", "override", reason=" reviewed by hand ", review={"decision": "REJECTED"}
    )
    entries = audit.entries()
    assert [e["kind"] for e in entries] == ["override", "human_decision"]
    assert entries[0]["reason"] == "reviewed by hand" and entries[0]["review"] == {"decision": "REJECTED"}
    assert [e["session_id"] for e in audit.entries("run-a")] == ["run-a"]
