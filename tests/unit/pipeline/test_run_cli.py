"""`acode run`, `summary`, `audit`, `stats` and `--undo` as a person or a script uses them: real
processes, the scripted backend selected in the project config, and a real terminal for the prompts."""

from __future__ import annotations

import json
import sys

import pexpect
import pytest
from tests.helpers.run_helpers import (
    BAD_UTIL,
    GOOD_UTIL,
    TASK,
    TEST_UTIL,
    UTIL,
    approve,
    events,
    git,
    good_execution,
    make_repo,
    plan,
    reject,
    run_cli,
    write,
    write_config,
)

from acode.paths import ProjectPaths
from acode.store.audit import AuditLog

REJECTED_ONCE = [plan("add is_even"), write("util.py", BAD_UTIL), "done",
                 *reject("return n % 2 == 1", "wrong parity", "use == 0")]


@pytest.fixture
def repo(tmp_path):
    return make_repo(tmp_path / "repo")


def spawn(root, *args: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "acode", *args],
        cwd=str(root),
        encoding="utf-8",
        timeout=90,
        dimensions=(50, 200),
        env={**__import__("os").environ, "NO_COLOR": "1", "TERM": "dumb"},
    )


def test_human_prompt_in_a_real_terminal_views_changes_then_approves(repo):
    write_config(
        repo, [plan("add is_even"), *good_execution(), *approve()], reviewer={"human_review": "prompt"}
    )
    child = spawn(repo, "run", TASK)
    child.expect(r"\[A\]pprove \[R\]eject \[V\]iew changes \[D\]etails")
    child.sendline("v")
    child.expect("return n % 2 == 0")  # the diff of util.py
    child.expect(r"\[A\]pprove")
    child.sendline("d")
    child.expect("check .*pytest.*: passed")
    child.expect(r"\[A\]pprove")
    child.sendline("a")
    child.expect("APPROVED")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    entry = AuditLog(ProjectPaths(repo).db_file).entries()[0]
    assert (entry["kind"], entry["decision"]) == ("human_decision", "approve")
    session = entry["session_id"]
    assert any(e["event"] == "human_decision" and e["via"] == "prompt" for e in events(repo, session))


def test_human_reject_in_a_terminal_exits_51(repo):
    write_config(
        repo, [plan("add is_even"), *good_execution(), *approve()], reviewer={"human_review": "require"}
    )
    child = spawn(repo, "run", TASK)
    child.expect(r"\[A\]pprove")
    child.sendline("r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 51


def test_interactive_override_refuses_an_empty_reason_then_logs_the_reason(repo):
    write_config(repo, REJECTED_ONCE, pipeline={"max_cycles": 1})
    child = spawn(repo, "run", TASK)
    child.expect(r"Override review rejection\? \[y/N\]")
    child.sendline("y")
    child.expect("Reason for the override")
    child.sendline("")
    child.expect("empty one is refused")
    child.expect("Reason for the override")
    child.sendline("false positive, parity checked by hand")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    override = next(e for e in AuditLog(ProjectPaths(repo).db_file).entries() if e["kind"] == "override")
    assert override["reason"] == "false positive, parity checked by hand"
    assert override["review"]["decision"] == "REJECTED"


def test_declining_the_override_in_a_terminal_exits_50(repo):
    write_config(repo, REJECTED_ONCE, pipeline={"max_cycles": 1})
    child = spawn(repo, "run", TASK)
    child.expect(r"Override review rejection\? \[y/N\]")
    child.sendline("")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 50


def test_a_rejected_run_says_how_to_undo_its_changes_and_the_command_works(repo):
    """Issue 52: the rejected change stays in the working tree; the outcome names the command that undoes
    it, and that command restores the tree."""
    write_config(repo, REJECTED_ONCE, pipeline={"max_cycles": 1})
    child = spawn(repo, "run", TASK)
    child.expect(r"Override review rejection\? \[y/N\]")
    child.sendline("")
    child.expect(r"undo them with\s+`acode run --undo (\S+)`")
    session = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 50
    assert (repo / "util.py").read_text() == BAD_UTIL  # the broken edit is still there, as it said

    undone = run_cli(repo, "run", "--undo", session)
    assert undone.returncode == 0, undone.stderr
    assert (repo / "util.py").read_text() == UTIL


@pytest.mark.slow
def test_override_flag_and_json_summary_audit_stats(repo):
    write_config(repo, REJECTED_ONCE, pipeline={"max_cycles": 1})
    empty = run_cli(repo, "run", TASK, "--override-reason", " ")
    assert empty.returncode == 2 and "--override-reason is empty" in empty.stderr

    done = run_cli(repo, "run", TASK, "--json", "--override-reason", "accepted: see ticket 12")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert (
        summary["decision"] == "APPROVED (override)"
        and summary["override"]["reason"] == "accepted: see ticket 12"
    )

    shown = run_cli(repo, "summary", summary["session_id"][:16], "--json")
    assert json.loads(shown.stdout)["session_id"] == summary["session_id"]
    people = run_cli(repo, "summary")
    assert "APPROVED (override)" in people.stdout and "util.py" in people.stdout

    audit = json.loads(run_cli(repo, "audit", "--json").stdout)
    assert audit[0]["kind"] == "override" and audit[0]["reason"] == "accepted: see ticket 12"
    table = run_cli(repo, "audit").stdout
    assert "override" in table and "ticket 12" in table

    stats = json.loads(run_cli(repo, "stats", "--json").stdout)
    assert stats["runs"] == 1 and stats["approval_rate"] == 1.0 and stats["overridden"] == 1
    assert {"category": "code_quality", "count": 1} in stats["common_issue_categories"]

    history = run_cli(repo, "review", "history", "--json")
    assert history.returncode == 0, history.stderr
    rows = json.loads(history.stdout)
    assert [(r["source"], r["target"], r["decision"]) for r in rows] == [("run", "pipeline", "REJECTED")]


def test_non_interactive_cli_exit_codes(repo):
    write_config(repo, REJECTED_ONCE, pipeline={"max_cycles": 1})
    assert run_cli(repo, "run", TASK).returncode == 50
    write_config(
        repo, [plan("add is_even"), *good_execution(), *approve()], reviewer={"human_review": "require"}
    )
    (repo / "util.py").write_text(UTIL)
    (repo / "test_util.py").unlink(missing_ok=True)
    declined = run_cli(repo, "run", TASK)
    assert declined.returncode == 51 and "--approve" in declined.stderr + declined.stdout


def test_undo_restores_the_tree_and_touches_nothing_outside(repo, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (repo / ".gitignore").write_text("*.log\n")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore logs")
    (repo / "notes.log").write_text("ignored, mine\n")
    write_config(
        repo,
        [
            plan("add is_even"),
            write("util.py", GOOD_UTIL),
            write("pkg/test_util.py", TEST_UTIL),
            "done",
            *approve(),
        ],
    )
    done = run_cli(repo, "run", TASK, "--json")
    assert done.returncode == 0, done.stderr
    session = json.loads(done.stdout)["session_id"]
    assert (repo / "pkg" / "test_util.py").is_file()

    undone = run_cli(repo, "run", "--undo", session, "--json")
    assert undone.returncode == 0, undone.stderr
    report = json.loads(undone.stdout)
    assert (repo / "util.py").read_text() == UTIL
    assert not (repo / "pkg").exists() and "pkg/test_util.py" in report["removed"]
    assert (repo / "notes.log").read_text() == "ignored, mine\n"  # ignored files are left alone
    assert outside.read_text() == "keep me\n"
    assert (ProjectPaths(repo).acode_dir / "runs" / session / "summary.json").is_file()  # records stay
    assert any(e["event"] == "undo" for e in events(repo, session))


def test_undo_of_a_dirty_start_gives_back_the_uncommitted_edits(repo):
    (repo / "util.py").write_text(UTIL + "# my local note\n")
    write_config(repo, [plan("add is_even"), write("util.py", GOOD_UTIL), "done", *approve()])
    done = run_cli(repo, "run", TASK, "--json")
    assert done.returncode == 1 and "ACODE-RUN-001" in done.stderr
    done = run_cli(repo, "run", TASK, "--json", "--allow-dirty")
    assert done.returncode == 0, done.stderr
    assert run_cli(repo, "run", "--undo", json.loads(done.stdout)["session_id"]).returncode == 0
    assert (repo / "util.py").read_text() == UTIL + "# my local note\n"


def test_usage_errors_are_clear(repo):
    write_config(repo, [])
    no_task = run_cli(repo, "run")
    assert no_task.returncode == 2 and "ACODE-RUN-014" in no_task.stderr
    unknown = run_cli(repo, "run", "--undo", "run-nope")
    assert unknown.returncode == 2 and "no run session" in unknown.stderr
    nothing = run_cli(repo, "summary")
    assert nothing.returncode == 2 and "Traceback" not in nothing.stderr
