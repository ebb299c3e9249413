"""`acode review` where CI systems run it: the report formats they read (each checked against its published
format rules), the target branch from the CI variables (a shallow, detached clone included), and GitHub's
job summary. Scripted model; the remote is a bare repository on disk (no network)."""

from __future__ import annotations

import json
import subprocess

import jsonschema
import pytest
import yaml
from junitparser import JUnitXml
from tests.helpers.ci_schemas import GITHUB_COMMAND, GITLAB_CODE_QUALITY, RDJSON
from tests.helpers.review_cli import BUG, PROPOSE_NOTHING, invoke, use_script
from tests.helpers.review_fakes import BUGGY, SOUND, ci_clone, git, repo_with_branch

from acode.config.review import DIMENSIONS

REJECTING = [PROPOSE_NOTHING, BUG, PROPOSE_NOTHING, PROPOSE_NOTHING, PROPOSE_NOTHING, {"text": "Yes"}]

@pytest.fixture
def repo(tmp_path, monkeypatch):
    repo = repo_with_branch(tmp_path / "repo", {"pages.py": SOUND}, {"pages.py": BUGGY})
    monkeypatch.chdir(repo)
    return repo


def test_github_annotations_follow_the_workflow_command_syntax(repo):
    use_script(repo, REJECTING)
    result = invoke("--format", "github")
    assert result.exit_code == 50, result.output
    lines = result.stdout.strip().splitlines()
    parsed = [GITHUB_COMMAND.match(line) for line in lines]
    assert all(parsed), lines
    properties = [dict(p.split("=", 1) for p in (m.group(2) or "").split(",") if p) for m in parsed]
    located = [p for p in properties if p.get("file") == "pages.py"]
    assert located and located[0]["line"] == "3"
    assert parsed[-1].group(1) == "error" and parsed[-1].group(3).startswith("REJECTED")


def test_gitlab_code_quality_report_is_valid_and_fingerprints_are_unique(repo, tmp_path):
    use_script(repo, REJECTING)
    out = tmp_path / "gl-code-quality-report.json"
    assert invoke("--format", "gitlab", "-o", str(out)).exit_code == 50
    report = json.loads(out.read_text())
    jsonschema.Draft7Validator(GITLAB_CODE_QUALITY).validate(report)
    assert report and len({i["fingerprint"] for i in report}) == len(report)
    assert any(i["location"] == {"path": "pages.py", "lines": {"begin": 3}} for i in report)


def test_junit_has_a_case_per_dimension_and_finding_and_fails_on_rejection(repo, tmp_path):
    use_script(repo, REJECTING)
    out = tmp_path / "review.xml"
    assert invoke("--format", "junit", "-o", str(out)).exit_code == 50
    xml = JUnitXml.fromfile(str(out))
    suites = list(xml)
    cases = list(suites[0])
    names = [c.name for c in cases]
    assert set(DIMENSIONS) <= set(names)
    assert "decision" in names and any(n.startswith("review/") for n in names)
    decision = next(c for c in cases if c.name == "decision")
    assert not decision.is_passed and suites[0].failures >= 1
    assert suites[0].tests == len(cases)


def test_junit_of_an_approved_review_has_no_failure(repo, tmp_path):
    use_script(repo, [PROPOSE_NOTHING] * 5)
    out = tmp_path / "review.xml"
    assert invoke("--format", "junit", "-o", str(out)).exit_code == 0
    suite = next(iter(JUnitXml.fromfile(str(out))))
    assert suite.failures == 0 and all(c.is_passed or c.is_skipped for c in suite)


def test_rdjson_is_valid_reviewdog_input(repo):
    use_script(repo, REJECTING)
    result = invoke("--format", "rdjson")
    assert result.exit_code == 50
    data = json.loads(result.stdout)
    jsonschema.Draft7Validator(RDJSON).validate(data)
    assert any(d["location"]["path"] == "pages.py" and d["location"]["range"]["start"]["line"] == 3
               for d in data["diagnostics"])


def test_an_unknown_format_names_the_known_ones(repo):
    use_script(repo, [])
    result = invoke("--format", "html")
    assert result.exit_code == 2 and "ACODE-REVIEW-042" in result.output and "rdjson" in result.output


# -- the base from the CI environment --------------------------------------------------------------------
def _use_script_in(clone, steps):
    script = clone.parent / "ci-script.yml"
    script.write_text(yaml.safe_dump(steps))
    (clone / ".acode").mkdir(exist_ok=True)
    (clone / ".acode" / "config.yml").write_text(yaml.safe_dump(
        {"model": {"backend": "scripted", "script": str(script)},
         "reviewer": {"require_candidates": False, "strategy": "per_dimension", "behaviour": {"enabled": False}}}))


def test_github_pull_request_job_reviews_against_the_target_fetched_into_a_shallow_clone(repo, tmp_path,
                                                                                         monkeypatch):
    clone = ci_clone(repo, tmp_path)
    _use_script_in(clone, REJECTING)
    missing = subprocess.run(["git", "rev-parse", "--verify", "--quiet", "origin/main"], cwd=clone, check=False)
    assert missing.returncode != 0
    summary = tmp_path / "step-summary.md"
    for key, value in {"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main",
                       "GITHUB_HEAD_REF": "feature", "GITHUB_STEP_SUMMARY": str(summary)}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(clone)
    result = invoke("--json")
    assert result.exit_code == 50, result.output
    data = json.loads(result.stdout)
    assert data["base_ref"] == "origin/main" and data["head_ref"] == "feature"
    assert "the pull/merge request's target" in result.stderr
    assert summary.read_text().startswith("# Review of feature against origin/main")
    assert "REJECTED" in summary.read_text()


def test_gitlab_merge_request_job_uses_the_named_merge_base(repo, tmp_path, monkeypatch):
    base_sha = git(repo, "rev-parse", "main")
    clone = ci_clone(repo, tmp_path)
    git(clone, "fetch", "-q", "--depth", "2", "origin", "feature")  # GitLab's GIT_DEPTH keeps the merge base
    _use_script_in(clone, [PROPOSE_NOTHING] * 5)
    for key, value in {"CI": "true", "GITLAB_CI": "true", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                       "CI_MERGE_REQUEST_DIFF_BASE_SHA": base_sha,
                       "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature"}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(clone)
    result = invoke("--json")
    data = json.loads(result.stdout)
    assert data["base_sha"] == base_sha and data["head_ref"] == "feature", result.output


def test_a_target_that_cannot_be_fetched_says_which_fetch_to_add(repo, tmp_path, monkeypatch):
    clone = ci_clone(repo, tmp_path)
    git(clone, "remote", "remove", "origin")
    _use_script_in(clone, [PROPOSE_NOTHING] * 5)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_BASE_REF", "main")
    monkeypatch.chdir(clone)
    result = invoke()
    assert result.exit_code == 2, result.output
    assert "ACODE-GIT-010" in result.output and "git fetch origin main" in result.output


def test_outside_a_pull_request_a_detached_head_is_still_refused(repo, monkeypatch):
    use_script(repo, [PROPOSE_NOTHING] * 5)
    monkeypatch.setenv("CI", "true")  # a CI job on a push: no target branch to review against
    git(repo, "checkout", "-q", "--detach", "HEAD")
    result = invoke()
    assert result.exit_code == 2 and "ACODE-GIT-004" in result.output


def test_staged_reviews_the_index_not_the_working_tree(repo):
    use_script(repo, REJECTING)
    git(repo, "switch", "-q", "main")
    (repo / "pages.py").write_text(BUGGY)
    git(repo, "add", "pages.py")
    (repo / "pages.py").write_text(SOUND)  # the working tree is back to the base; the index holds the bug
    staged = invoke("--staged", "--json")
    data = json.loads(staged.stdout)
    assert staged.exit_code == 50 and data["head_ref"] == "main (staged)", staged.output
    git(repo, "reset", "-q")
    nothing = invoke("--staged")
    assert nothing.exit_code == 0 and "nothing to review: nothing is staged" in nothing.output
