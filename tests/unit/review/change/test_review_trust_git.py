"""Issue 47 (items 1, 2, 3, 7, 10, 11): the change under review, or the repository's config, must not blind
the review through git. Each test runs `acode review` through the CLI on a scripted model, on a change that
adds an SQL injection and a (fake) GitHub token, and sets something git reads: attributes that call the
Python files binary, colour or prefixes that hide the added lines, a symlinked ``.acode``, an ``ext::``
remote, absolute symlinks, a flood of test output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from tests.helpers.review_fakes import ci_clone, git, repo_with_branch

CALC = "def add(a, b):\n    return a + b\n"
# a fake token of the GitHub shape (never a real one) and string-built SQL: secret/github-token, ruff/S608
HOSTILE = '''import sqlite3

TOKEN = "ghp_1234567890abcdefghijABCDEFGHIJ123456"


def find(conn: sqlite3.Connection, name: str):
    return conn.execute("SELECT * FROM users WHERE name = '" + name + "'").fetchall()
'''
PROPOSE_NOTHING = {"json": {"findings": []}}


def review(repo: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300,
           **settings: str) -> subprocess.CompletedProcess:
    """`acode review --json` in ``repo`` on a scripted model that proposes nothing; ``settings`` are extra
    ``ACODE_*`` variables."""
    script = repo.parent / "script.yml"
    script.write_text(yaml.safe_dump([PROPOSE_NOTHING] * 12))
    full = {**os.environ, "COLUMNS": "250", "ACODE_MODEL__BACKEND": "scripted", "ACODE_MODEL__SCRIPT": str(script),
            "ACODE_REVIEWER__STRATEGY": "per_dimension", "ACODE_REVIEWER__REQUIRE_CANDIDATES": "false",
            "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false", "ACODE_REVIEWER__RUN_TESTS": "false",
            **settings, **(env or {})}
    return subprocess.run([sys.executable, "-m", "acode", "review", "--json", *args], cwd=repo, env=full,
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)


def rules(out: subprocess.CompletedProcess) -> set[str]:
    assert out.returncode in (0, 50), out.stderr[-3000:]
    return {finding["rule"] for finding in json.loads(out.stdout)["evidence"]}


def hostile_change(tmp_path: Path, extra: dict[str, str | None] | None = None) -> Path:
    return repo_with_branch(tmp_path / "repo", {"calc.py": CALC}, {"db.py": HOSTILE, **(extra or {})})


def assert_seen(out: subprocess.CompletedProcess) -> None:
    """The review read db.py as text: the secret and ruff checks found their defects, the model got the
    file, and the change is rejected."""
    assert {"secret/github-token", "ruff/S608"} <= rules(out), out.stdout[-3000:]
    data = json.loads(out.stdout)
    assert "db.py" in data["packing"]["included"], data["packing"]
    assert out.returncode == 50 and data["decision"]["verdict"] == "REJECTED"


# --- item 1: a file is binary by its bytes, never by an attribute ---------------------------------------

@pytest.mark.parametrize("how", ["gitattributes -diff", "gitattributes binary", "core.attributesFile",
                                 "info/attributes", "core.bigFileThreshold"])
def test_attributes_do_not_make_the_changes_python_files_binary(tmp_path, how):
    extra = {".gitattributes": "*.py -diff\n" if how.endswith("-diff") else "*.py binary\n"}
    repo = hostile_change(tmp_path, extra if how.startswith("gitattributes") else None)
    if how == "core.attributesFile":  # a handed-over repository's config
        (tmp_path / "attributes").write_text("*.py -diff\n")
        git(repo, "config", "core.attributesFile", str(tmp_path / "attributes"))
    elif how == "info/attributes":
        (repo / ".git" / "info" / "attributes").write_text("*.py binary\n")
    elif how == "core.bigFileThreshold":
        git(repo, "config", "core.bigFileThreshold", "1")
    assert_seen(review(repo, "--base", "main"))


def test_a_file_with_a_nul_byte_is_still_binary(tmp_path):
    repo = hostile_change(tmp_path)
    (repo / "blob.py").write_bytes(b"x = 1\n\0\1\2")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a binary")
    out = review(repo, "--base", "main")
    assert_seen(out)
    assert "blob.py" not in json.loads(out.stdout)["packing"]["included"]


def test_untracked_python_files_are_read_whatever_the_attributes_say(tmp_path):
    repo = repo_with_branch(tmp_path / "repo", {"calc.py": CALC}, {"calc.py": CALC + "\n"})
    (repo / ".gitattributes").write_text("*.py -diff\n")
    (repo / "db.py").write_text(HOSTILE)  # untracked, reviewed as added
    assert_seen(review(repo, "--uncommitted"))


# --- item 2: git's output does not depend on the user's or the repository's config -----------------------

@pytest.mark.parametrize("settings", [
    ["color.ui=always"], ["color.diff=always"], ["user:color.diff=always"],
    # not read on main (one diff per file, names from -z); the one diff of the whole change is split at
    # its headers, which these would change
    ["diff.noprefix=true", "diff.mnemonicPrefix=true", "diff.suppressBlankEmpty=true", "core.quotePath=true",
     "diff.context=0", "diff.renames=copies"],
])
def test_git_config_does_not_hide_the_added_lines(tmp_path, settings):
    repo = hostile_change(tmp_path, {"sub/dïr/q.py": HOSTILE.replace("find", "lookup")})
    env = {}
    for setting in settings:
        key, value = setting.removeprefix("user:").split("=")
        if setting.startswith("user:"):  # the user's own ~/.gitconfig
            (tmp_path / "gitconfig").write_text(f"[{key.split('.')[0]}]\n\t{key.split('.')[1]} = {value}\n")
            env["GIT_CONFIG_GLOBAL"] = str(tmp_path / "gitconfig")
        else:
            git(repo, "config", key, value)
    out = review(repo, "--base", "main", env=env)
    assert_seen(out)
    data = json.loads(out.stdout)
    assert "sub/dïr/q.py" in data["packing"]["included"]
    assert {f["file"] for f in data["evidence"] if f["rule"] == "ruff/S608"} == {"db.py", "sub/dïr/q.py"}


# --- item 3: the base's settings as git stores them, never through a symbolic link ------------------------

SAFETY_OFF = yaml.safe_dump({"reviewer": {"dimensions": {"safety": {"enabled": False}}}})


def _commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def test_a_symlinked_acode_folder_added_by_the_change_does_not_choose_the_settings(tmp_path):
    repo = hostile_change(tmp_path, {"conf/config.yml": SAFETY_OFF})
    (repo / ".acode").symlink_to("conf")
    _commit_all(repo, "settings by a link")
    out = review(repo, "--base", "main")
    assert_seen(out)
    assert "safety" in {d["name"] for d in json.loads(out.stdout)["dimensions"]}
    assert "uses the settings of its base" in out.stderr


def test_a_symlink_the_base_holds_is_not_followed_to_a_file_the_change_edits(tmp_path):
    repo = repo_with_branch(tmp_path / "repo", {"calc.py": CALC, "conf/config.yml": "reviewer: {}\n"},
                            {"db.py": HOSTILE})
    git(repo, "switch", "-q", "main")
    (repo / ".acode").symlink_to("conf")
    _commit_all(repo, "settings by a link")
    git(repo, "switch", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    (repo / "conf" / "config.yml").write_text(SAFETY_OFF)
    _commit_all(repo, "the change turns safety off through the link")
    out = review(repo, "--base", "main")
    assert_seen(out)
    assert "safety" in {d["name"] for d in json.loads(out.stdout)["dimensions"]}
    assert ".acode is a symbolic link at main: not followed" in out.stderr, out.stderr


# --- item 7: the CI base fetch never runs an ext:: remote ----------------------------------------------

@pytest.mark.parametrize("how", ["remote.origin.url", "url.insteadOf"])
def test_the_ci_base_fetch_never_runs_an_ext_remote(tmp_path, how):
    """A pull request job's shallow clone without the base: acode fetches it from origin. A handed-over
    repository's config naming an ext:: transport (which runs a command) is not fetched from."""
    job = ci_clone(hostile_change(tmp_path), tmp_path)
    marker = tmp_path / "EXT_RAN"
    command = f"ext::sh -c touch% {marker}"
    if how == "remote.origin.url":
        git(job, "config", "remote.origin.url", command)
    else:  # the URL stays file://, a rewrite turns it into the command
        git(job, "config", f"url.{command} #.insteadOf", "file://")
    git(job, "config", "protocol.ext.allow", "always")
    out = review(job, env={"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "main"})
    assert not marker.exists()
    assert out.returncode == 2 and "ACODE-GIT-010" in out.stderr, out.stderr
    assert "acode does not fetch from it" in out.stderr


# --- item 10: symbolic links leading outside the tree do not crash the test runs -------------------------

TEST_CALC = "from calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"


@pytest.mark.parametrize("hostile", ["links", "export-ignore"])
def test_absolute_symlinks_are_left_out_of_the_test_trees_and_said(tmp_path, hostile):
    """``ln -s /usr/bin/python3 py`` on the base and a link out of the tree in the change: the tests run on
    both sides and the regression shows. The trees are written from git's objects, so the change's
    ``export-ignore`` cannot drop its tests from one side either."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for key, value in (("user.email", "dev@example.com"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(repo, "config", key, value)
    (repo / "calc.py").write_text(CALC)
    (repo / "test_calc.py").write_text(TEST_CALC)
    if hostile == "links":
        (repo / "py").symlink_to("/usr/bin/python3")
        (repo / "here").symlink_to("calc.py")  # a link inside the tree is kept
    _commit_all(repo, "initial")
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "calc.py").write_text(CALC.replace("a + b", "a - b"))
    if hostile == "links":
        (repo / "up").symlink_to("../../outside")
    else:
        (repo / ".gitattributes").write_text("test_*.py export-ignore\n")
    _commit_all(repo, "subtract")
    out = review(repo, "--base", "main", "--run-tests", ACODE_REVIEWER__RUN_TESTS="true",
                 ACODE_REVIEWER__REGRESSION__METHOD="off")
    assert out.returncode == 50, out.stderr[-3000:]
    tests = json.loads(out.stdout)["tests"]
    assert tests["base"] is not None and tests["regressed"] == ["test_calc::test_add"], tests
    assert ("left out of the test runs: py, up" in tests["note"]) == (hostile == "links")


# --- item 11: the test runs' output is read with a cap -------------------------------------------------

FLOOD_MB = 200


def test_a_test_flooding_its_output_does_not_grow_the_review(tmp_path):
    """A failing test that writes 200 MB (pytest prints it in the failure report, through the pipe): the
    review keeps its tail and counts the rest, its own memory stays far below the flood."""
    flood = (f"def test_flood():\n    for _ in range({FLOOD_MB}):\n"
             "        print('x' * (1 << 20))\n    assert False\n")
    repo = repo_with_branch(tmp_path / "repo", {"calc.py": CALC, "test_calc.py": TEST_CALC},
                            {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n", "test_flood.py": flood})
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump([PROPOSE_NOTHING] * 12))
    env = {**os.environ, "ACODE_MODEL__BACKEND": "scripted", "ACODE_MODEL__SCRIPT": str(script),
           "ACODE_REVIEWER__REQUIRE_CANDIDATES": "false", "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false",
           "ACODE_REVIEWER__REGRESSION__METHOD": "off", "ACODE_REVIEWER__TEST_TIMEOUT_SECONDS": "240"}
    proc = subprocess.Popen([sys.executable, "-m", "acode", "review", "--json", "--base", "main", "--run-tests"],
                            cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)
    peak = 0
    status = Path(f"/proc/{proc.pid}/status")
    while proc.poll() is None:  # the high-water mark of the review's own memory, until it ends
        try:
            line = next(li for li in status.read_text().splitlines() if li.startswith("VmHWM:"))
            peak = max(peak, int(line.split()[1]) // 1024)
        except (OSError, StopIteration):
            pass
        time.sleep(0.1)
    stdout, stderr = proc.communicate()
    assert proc.returncode in (0, 50), stderr[-3000:]
    assert 0 < peak < FLOOD_MB // 2, f"the review's peak memory was {peak} MB"
    tests = json.loads(stdout)["tests"]
    assert tests["output_bytes"] > FLOOD_MB << 20, tests  # counted, not kept
    assert len(tests["output_tail"]) <= 3000
