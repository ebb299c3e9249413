"""`acode review dismiss` through the CLI: a finding dismissed on the base branch stays dismissed across a
rebase that moves it 30 lines, comes back when its code changes, and the change under review cannot
dismiss its own findings (the file is read from the base). No model (`--backend none`): ruff decides."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

HEAD = "import subprocess\n" + "".join(f"LIMIT_{i} = {i}\n" for i in range(10)) + "\n\n"
BASE = HEAD + "def run(cmd):\n    return cmd\n"
SHELL = HEAD + "def run(cmd):\n    return subprocess.run('ls ' + cmd, shell=True)\n"
FILLER = "".join(f"SETTING_{i} = {i}\n" for i in range(30))


def review(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ACODE_")}
    env.update(HOME=str(repo.parent / "home"), ACODE_MODEL__BACKEND="none")
    return subprocess.run([sys.executable, "-m", "acode", "review", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def check(repo: Path) -> subprocess.CompletedProcess:
    return review(repo, "--base", "main", "--no-run-tests", "--fresh")


def shell_branch(tmp_path: Path) -> Path:
    """main with run(cmd), and the branch feature making it run a command line through the shell."""
    (tmp_path / "home").mkdir()
    repo = make_git_repo(tmp_path / "repo", {"app.py": BASE})
    git(repo, "switch", "-qc", "feature")
    (repo / "app.py").write_text(SHELL)
    git(repo, "commit", "-qam", "run through the shell")
    return repo


def test_a_dismissal_lasts_while_its_code_moves_and_ends_when_it_changes(tmp_path):
    repo = shell_branch(tmp_path)
    first = check(repo)
    assert first.returncode == 50 and "ruff/S602" in first.stdout, first.stdout + first.stderr
    line = SHELL.splitlines().index("    return subprocess.run('ls ' + cmd, shell=True)") + 1

    dismissed = review(repo, "dismiss", f"ruff/S602@app.py:{line}", "--reason", "cmd is a constant list")
    assert dismissed.returncode == 0, dismissed.stdout + dismissed.stderr
    entries = yaml.safe_load((repo / ".acode" / "review-dismissed.yml").read_text())["dismissed"]
    assert [(e["rule"], e["file"], e["reason"]) for e in entries] == [
        ("ruff/S602", "app.py", "cmd is a constant list")]

    # committed by the change under review itself: it does not count
    git(repo, "add", ".acode/review-dismissed.yml")
    git(repo, "commit", "-qm", "dismiss my own finding")
    own = check(repo)
    assert own.returncode == 50 and "the team dismissed" not in own.stdout, own.stdout

    # landed on main (its own pull request), and main grows 30 lines above the code; the branch rebased
    text = (repo / ".acode" / "review-dismissed.yml").read_text()
    git(repo, "reset", "-q", "--hard", "HEAD~1")
    git(repo, "switch", "-q", "main")
    (repo / ".acode").mkdir(exist_ok=True)
    (repo / ".acode" / "review-dismissed.yml").write_text(text)
    (repo / "app.py").write_text(BASE.replace("import subprocess\n", "import subprocess\n" + FILLER))
    git(repo, "add", "app.py", ".acode/review-dismissed.yml")
    git(repo, "commit", "-qm", "dismiss S602 in run(); settings")
    git(repo, "switch", "-q", "feature")
    git(repo, "rebase", "-q", "main")
    assert (repo / "app.py").read_text().splitlines()[line + 29] == "    return subprocess.run('ls ' + cmd, shell=True)"
    kept = check(repo)
    assert kept.returncode == 0 and "1 finding(s) the team dismissed" in kept.stdout, kept.stdout + kept.stderr

    (repo / "app.py").write_text((repo / "app.py").read_text().replace("'ls ' + cmd", "'ls -l ' + cmd"))
    git(repo, "commit", "-qam", "verbose")
    back = check(repo)
    assert back.returncode == 50 and "ruff/S602" in back.stdout and "the team dismissed" not in back.stdout


def test_a_finding_the_review_does_not_have_is_refused(tmp_path):
    repo = shell_branch(tmp_path)
    check(repo)
    refused = review(repo, "dismiss", "ruff/S602@other.py:1", "--reason", "x")
    assert refused.returncode == 2 and "ACODE-REVIEW-062" in refused.stderr and "ruff/S602@app.py:" in refused.stderr
    assert not (repo / ".acode" / "review-dismissed.yml").exists()
