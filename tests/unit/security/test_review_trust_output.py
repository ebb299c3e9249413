"""Issue 47 items 6, 8, 9 and 12: what a change under review can make the review print or store.

Item 6: the code under review runs in the sandbox without the checkout's git configuration and credentials,
and whatever it prints (test output, the return values the behavioural diff quotes) reaches every output
shortened and redacted. Item 8: under GitHub Actions nothing the change controls starts a log line as a
workflow command. Item 9: text from the change or the model cannot break out of the Markdown report. Item
12: the files acode writes that hold prompts or outputs are for their owner only.

Every credential here is fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from acode.sandbox import find_sandbox

SANDBOX, WHY_NOT = find_sandbox()
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")

CONFIG_MARKER = "CONFIG-MARKER-4711"
INCLUDED_MARKER = "INCLUDED-MARKER-0815"
NO_FINDINGS = {"json": {"findings": []}}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def committed_repo(path: Path, files: dict[str, str], script: list | None = None) -> Path:
    """A repository on ``main`` holding ``files`` and a scripted model's settings."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for key, value in (("user.email", "dev@example.com"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)
    script_file = path.parent / "script.yml"
    script_file.write_text(yaml.safe_dump(script or [NO_FINDINGS] * 6))
    config = {"model": {"backend": "scripted", "script": str(script_file)},
              "reviewer": {"require_candidates": False, "behaviour": {"crosshair_seconds": 0, "seconds": 1}}}
    files = {".acode/config.yml": yaml.safe_dump(config), **files}
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def review(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acode", "review", *args], cwd=repo,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, check=False)


READS_GIT_CONFIG = '''from pathlib import Path


def info(name):
    git = Path(__file__).with_name(".git")
    return (git / "config").read_text()[-400:] + (git / "extra.conf").read_text() + name
'''
TEST_PRINTS_GIT_CONFIG = '''from pathlib import Path


def test_info():
    git = Path(__file__).with_name(".git")
    print((git / "config").read_text(), (git / "extra.conf").read_text())
    assert False
'''


@needs_sandbox
def test_the_changes_code_cannot_read_the_checkouts_git_configuration(tmp_path):
    repo = committed_repo(tmp_path / "repo", {"info.py": "def info(name):\n    return name.upper()\n"})
    with (repo / ".git" / "config").open("a") as config:  # as actions/checkout leaves it (v6: an include)
        config.write(f'[acodetest]\n\tmarker = {CONFIG_MARKER}\n[includeIf "gitdir:{repo}/.git"]\n'
                     f"\tpath = {repo}/.git/extra.conf\n")
    (repo / ".git" / "extra.conf").write_text(f"[acodetest]\n\tincluded = {INCLUDED_MARKER}\n")
    assert CONFIG_MARKER in git(repo, "config", "--list") and INCLUDED_MARKER in git(repo, "config", "--list")
    (repo / "info.py").write_text(READS_GIT_CONFIG)  # uncommitted: the tests run on the checkout itself
    (repo / "test_info.py").write_text(TEST_PRINTS_GIT_CONFIG)

    out = review(repo, "--uncommitted", "--run-tests", "--json")
    assert out.returncode in (0, 50), out.stderr
    result = json.loads(out.stdout)
    function = result["behaviour"]["functions"][0]
    assert "[core]" in json.dumps(function), function  # it ran and read a configuration: git's core only
    assert "test_info" in json.dumps(result["tests"]), result["tests"]
    for marker in (CONFIG_MARKER, INCLUDED_MARKER):
        assert marker not in out.stdout and marker not in out.stderr
    assert CONFIG_MARKER in git(repo, "config", "--list")  # outside the sandbox nothing changed


def test_a_worktrees_and_submodules_configurations_are_hidden_too(tmp_path):
    from acode.sandbox_git import hidden_git_files

    repo = committed_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    git(repo, "config", "http.https://example.invalid/.extraheader", "AUTHORIZATION: basic ZmFrZQ==")
    git(repo, "worktree", "add", "-q", str(tmp_path / "tree"))
    (repo / ".git" / "modules" / "sub").mkdir(parents=True)
    (repo / ".git" / "modules" / "sub" / "config").write_text('[http]\n\textraheader = AUTHORIZATION: x\n')
    (repo / ".git" / "credentials").write_text("https://user:fake@example.invalid\n")
    shown = dict(hidden_git_files(tmp_path / "tree"))
    assert {repo / ".git" / "config", repo / ".git" / "modules" / "sub" / "config",
            repo / ".git" / "credentials"} <= set(shown)
    assert all("AUTHORIZATION" not in text.read_text() and "fake" not in text.read_text()
               for text in shown.values())
    assert "repositoryformatversion" in shown[repo / ".git" / "config"].read_text()


# fake credentials of each shape detect-secrets 1.5 has no plugin for (acode.secret_shapes)
FAKE_KEYS = {
    "header": "eC1hY2Nlc3MtdG9rZW46Z2hzX0Zha2VGYWtlRmFrZUZha2VGYWtl",
    "openai": "sk-proj-Fake1Fake2Fake3Fake4Fake5Fake6Fake7Fake8",
    "anthropic": "sk-ant-api03-Fake1Fake2Fake3Fake4Fake5Fake6Fake7Fake8-FakeAA",
    "huggingface": "hf_FakeFakeFakeFakeFakeFakeFakeFake12",
    "google": "AIzaFakeFakeFakeFakeFakeFakeFakeFake123",
    "github": "github_pat_11FAKEFAKE0FakeFakeFakeFake_FakeFakeFakeFakeFakeFake",
}
_PRINTED = "AUTHORIZATION: basic {header}\\nkeys {openai} {anthropic} {huggingface} {google} {github}"


def printed_keys_repo(path: Path) -> Path:
    """A change whose function returns fake credentials and whose test prints them (the source holds them
    base64-encoded: only what the code prints at run time carries them)."""
    import base64

    secret = base64.b64encode(_PRINTED.format(**FAKE_KEYS).encode()).decode()
    repo = committed_repo(path, {"info.py": "def info(name):\n    return name.upper()\n",
                                 "test_info.py": "from info import info\n\n\ndef test_info():\n"
                                                 "    assert info('a') == 'A'\n"})
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "info.py").write_text(f"import base64\n\n\ndef info(name):\n    return base64.b64decode("
                                  f"'{secret}').decode() + name\n")
    (repo / "test_info.py").write_text("from info import info\n\n\ndef test_info():\n    print(info('x'))\n"
                                       "    assert info('a') == 'A'\n")
    git(repo, "commit", "-qam", "Read the keys")
    return repo


@needs_sandbox
def test_keys_the_changes_code_prints_are_redacted_in_every_output_and_the_database(tmp_path):
    repo = printed_keys_repo(tmp_path / "repo")
    first = review(repo, "--base", "main", "--run-tests", "--json")
    assert first.returncode == 50, first.stderr
    result = json.loads(first.stdout)
    assert "[REDACTED]" in json.dumps(result["behaviour"]) and "[REDACTED]" in json.dumps(result["tests"])
    outputs = {"json": first.stdout + first.stderr}
    for fmt in ("markdown", "sarif", "github"):  # the stored review, rendered again
        shown = review(repo, "--base", "main", "--format", fmt)
        outputs[fmt] = shown.stdout + shown.stderr
    terminal = review(repo, "--base", "main")
    outputs["terminal"] = terminal.stdout + terminal.stderr
    assert "[REDACTED]" in outputs["terminal"] and "[REDACTED]" in outputs["markdown"]
    import sqlite3

    with sqlite3.connect(repo / ".acode" / "acode.db") as db:
        outputs["database"] = "\n".join(db.iterdump())
    assert "info" in outputs["database"]
    leaked = {(where, name) for where, text in outputs.items()
              for name, key in FAKE_KEYS.items() if key in text}
    assert not leaked
