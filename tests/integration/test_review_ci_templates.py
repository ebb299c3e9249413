"""The CI integrations this repository ships: the GitHub Action (action.yml), a sample workflow and the GitLab
CI template, validated against the published schemas check-jsonschema vendors; and the GitLab job run for
real by gitlab-ci-local (shell executor) on a scratch merge request, with the scripted model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from tests.ci_schemas import GITLAB_CODE_QUALITY
from tests.conftest import git, make_git_repo

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
