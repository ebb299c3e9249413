"""The real-commit set: bug fixes of real projects, each as a git repository `acode review --base main` can
review as a user would, in both directions.

Sources (``SOURCES``):
- acode's own history (the repository this file lives in, or ``--acode-repo``): commits that fix a bug,
  named by hash; the tree before the commit and after it.
- PyPI packages: the sdists of adjacent patch releases (``pip download --no-deps --no-binary :all:``);
  a release is kept when its changelog section names a fix and the Python change between the two
  releases is small (``MAX_LINES`` changed lines in at most ``MAX_FILES`` files, some of it outside the
  tests). The changelog section is the commit message.

Per fix, two repositories (``build``):
- ``fix``: `main` = the project before the fix, branch `change` = with the fix (its source and its
  tests), message = the fix's own message. Expected APPROVED.
- ``revert``: `main` = the project with the fix, branch `change` = the source files put back as they
  were before the fix (the tests stay: the commit puts the bug back, it does not remove its test),
  message "Update <files>" (a commit that re-introduces a bug rarely says so). Expected REJECTED.

With ``history=True`` (``real_commits.py --history``) `main` is not one commit but the project's history
as a maintainer's clone has it: for a PyPI project the previous release, then the release before the fix
(its changelog section as the message), and in the ``revert`` direction the fix as a commit of its own
with its message; for acode, a clone of its repository at the commit before the fix (``fix``) or at the
fix (``revert``). What the history adds is what `acode review` can read from it
(``acode.review.evidence.history``: a change that reverses an earlier fix).

Downloads and extracted trees are cached under ``benchmarks/.cache/real_commits`` (git-ignored); no
third-party source is committed.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import itertools
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parents[2]
CACHE = REPO / "benchmarks" / ".cache" / "real_commits"
MAX_LINES = 300
MAX_FILES = 10

# acode commits that fix a behaviour (subject says what was wrong); each one pair
ACODE_FIXES = (
    "3d00d9d",  # review_accuracy listed every Python commit again, one git diff each
    "5cecb1c",  # tool envelope inlines nested $defs for every tool (was fixed for complete_task only)
    "863f2f8",  # an unapproved plan exits 51, not 1
    "4795ab3",  # openai backend: a prompt echoed in an error is not a refused field
    "b99acaa",  # compression and next-speaker reset their state on a new session
    "69fdbbc",  # a check command shared by several plan steps runs once
    "d98782d",  # complete_task: nested $defs refs inlined
    "89f6b31",  # default thread count = idle cores
    "e55d5cc",  # agent status: task id and time never wrap
    "7917918",  # LlamaServer: OMP_WAIT_POLICY=PASSIVE
    "4494157",  # embedded: aligned chunks so cached and fresh evaluation agree
    "0399d9c",  # servers use the question method (implausible echo logprobs)
    "e3e23ae",  # agent status: prompt keeps a minimum width
    "a06beec",  # tests tolerate the loop's reminder (tests only: dropped by the filter)
)

# PyPI packages and the runs of adjacent releases compared (patch releases: mostly fixes)
PYPI_RELEASES = {
    "click": ("8.1.0", "8.1.1", "8.1.2", "8.1.3", "8.1.4", "8.1.5", "8.1.6", "8.1.7", "8.1.8", "8.2.0",
              "8.2.1", "8.3.0", "8.3.1", "8.3.2", "8.3.3"),
    "jinja2": ("3.1.0", "3.1.1", "3.1.2", "3.1.3", "3.1.4", "3.1.5", "3.1.6"),
    "werkzeug": ("3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.0.4", "3.0.5", "3.0.6", "3.1.0", "3.1.1", "3.1.2",
                 "3.1.3", "3.1.4", "3.1.5", "3.1.6", "3.1.7"),
    "flask": ("2.3.0", "2.3.1", "2.3.2", "2.3.3", "3.0.0", "3.0.1", "3.0.2", "3.0.3", "3.1.0", "3.1.1"),
    "sqlparse": ("0.4.0", "0.4.1", "0.4.2", "0.4.3", "0.4.4", "0.5.0", "0.5.1", "0.5.2", "0.5.3", "0.5.4",
                 "0.5.5"),
    "marshmallow": ("3.20.0", "3.20.1", "3.20.2", "3.21.0", "3.21.1", "3.21.2", "3.21.3", "3.23.0", "3.23.1",
                    "3.23.2", "3.23.3", "3.24.0", "3.24.1", "3.24.2", "3.25.0", "3.25.1", "3.26.0", "3.26.1"),
}
# projects nobody looked at while the review was tuned on the set above: the held-back measurement
# (`real_commits.py --held-back`), other projects and other people's bugs, built by the same rules
HELD_BACK_RELEASES = {
    "cachetools": ("5.5.0", "5.5.1", "5.5.2", "6.0.0", "6.1.0", "6.2.0", "6.2.1", "6.2.2", "6.2.3", "6.2.4",
                   "6.2.5", "6.2.6"),
    "python-dotenv": ("1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.2.0", "1.2.1", "1.2.2", "1.2.3", "1.2.4"),
    "markdown": ("3.5", "3.5.1", "3.5.2", "3.6", "3.7", "3.8", "3.8.1", "3.8.2", "3.9", "3.10", "3.10.1",
                 "3.10.2"),
    "tomli": ("2.0.0", "2.0.1", "2.0.2", "2.1.0", "2.2.1", "2.3.0", "2.3.1", "2.3.2", "2.4.0", "2.4.1",
              "2.5.0"),
    "idna": ("3.4", "3.5", "3.6", "3.7", "3.8", "3.9", "3.10"),
}
# projects only the fix benchmark uses (benchmarks/fix/fix_project.py), added in late November 2026 to grow
# its report half: nobody looked at their fixes while building the fixer (the review benchmark never sees
# them)
FIX_ONLY_RELEASES = {
    "pyflakes": ("3.0.0", "3.0.1", "3.1.0", "3.2.0", "3.3.0", "3.3.1", "3.3.2", "3.4.0", "4.0.0", "4.0.1",
                 "4.0.2", "4.0.3", "4.1.0"),
    "soupsieve": ("2.5", "2.6", "2.7", "2.8", "2.8.1", "2.8.2", "2.8.3", "2.8.4", "2.9", "2.9.1", "2.9.2",
                  "2.10", "3.0.2", "3.0.3", "3.0.4", "4.0", "4.0.1", "4.1", "4.1.1", "4.1.2", "4.1.3"),
    "tomlkit": ("0.12.0", "0.12.1", "0.12.2", "0.12.3", "0.12.4", "0.12.5", "0.13.0", "0.13.1", "0.13.2",
                "0.13.3", "0.14.0"),
    "pathspec": ("0.10.2", "0.10.3", "0.11.0", "0.11.1", "0.11.2", "0.12.0", "0.12.1", "1.0.0", "1.0.1",
                 "1.0.2"),
    "mistune": ("3.0.2", "3.1.0", "3.1.1", "3.1.2", "3.1.3", "3.1.4", "3.2.0", "3.2.1", "3.3.0", "3.3.1"),
    "semver": ("3.0.0", "3.0.1", "3.0.2", "3.0.4", "3.1.0", "3.1.1", "3.1.2"),
    "pyparsing": ("3.1.0", "3.1.1", "3.1.2", "3.1.3", "3.1.4", "3.2.0", "3.2.1", "3.2.2", "3.2.3", "3.2.4",
                  "3.2.5", "3.3.0", "3.3.1", "3.3.2", "3.3.3"),
}
# the sets ``all_fixes`` reads: the tuning set (with acode's own fixes), the held-back one, the fix-only one
RELEASE_SETS = {"tuning": PYPI_RELEASES, "held-back": HELD_BACK_RELEASES, "fix-only": FIX_ONLY_RELEASES}
_SKIP_DIRS = {"docs", "doc", "examples", "example", "artwork", "benchmarks", "scripts", ".github"}
_TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]+$|_test\.py$|(^|/)conftest\.py$")
_FIX_WORDS = re.compile(r"\b(fix(es|ed)?|bug|regression|incorrect(ly)?|crash|no longer|wrong)\b",
                        re.IGNORECASE)
_VERSION_LINE = re.compile(r"^\s*__version__\s*=")


@dataclass
class Fix:
    project: str
    name: str  # e.g. "click 8.1.6->8.1.7" or "acode 3d00d9d"
    message: str  # the fix's commit message (subject, blank line, body)
    before: Path  # the project's tree before the fix
    changes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # path -> (old, new)
    # the history before ``before`` (``build(history=True)``): the previous release's tree and the message
    # of the release that made ``before`` (PyPI), or the fix's commit in the acode repository
    prior: Path | None = None
    before_message: str = ""
    commit: str = ""

    @property
    def changed_lines(self) -> int:
        return sum(_changed_lines(old or "", new or "") for old, new in self.changes.values())

    def source_paths(self) -> list[str]:
        return sorted(p for p in self.changes if not is_test(p))


def is_test(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


def _changed_lines(old: str, new: str) -> int:
    diff = difflib.unified_diff(old.splitlines(), new.splitlines(), lineterm="", n=0)
    return sum(1 for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---")))


def run(cmd: list[str], cwd: Path | None = None) -> str:
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


# --- PyPI -------------------------------------------------------------------------------------------

def partial_tree(tree: Path) -> Path:
    """Where ``tree`` is extracted before it is moved into place: its own name plus ``.part`` (not
    ``with_suffix``, which makes python-dotenv-1.1.0 and -1.1.1 share ``python-dotenv-1.1.part``)."""
    return tree.parent / f"{tree.name}.part"


def sdist_tree(name: str, version: str) -> Path:
    """The extracted sdist of NAME==VERSION (downloaded once into the cache)."""
    tree = CACHE / "trees" / f"{name}-{version}"
    if tree.exists():
        return tree
    downloads = CACHE / "sdists" / f"{name}-{version}"
    if not any(downloads.glob("*")):
        downloads.mkdir(parents=True, exist_ok=True)
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             "-d", str(downloads), f"{name}=={version}"])
    archive = next(downloads.glob("*"))
    tmp = partial_tree(tree)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    if archive.name.endswith(".zip"):
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
    else:
        with tarfile.open(archive) as t:
            t.extractall(tmp, filter="data")
    inner = [p for p in tmp.iterdir()]
    root = inner[0] if len(inner) == 1 and inner[0].is_dir() else tmp
    shutil.move(str(root), str(tree))
    shutil.rmtree(tmp, ignore_errors=True)
    return tree


def python_files(tree: Path) -> dict[str, str]:
    out = {}
    for path in tree.rglob("*.py"):
        rel = path.relative_to(tree).as_posix()
        parts = PurePosixPath(rel).parts
        if _SKIP_DIRS.intersection(parts[:-1]) or parts[-1] == "setup.py" or ".egg-info" in rel:
            continue
        out[rel] = path.read_text(encoding="utf-8", errors="replace")
    return out


def tree_changes(old: dict[str, str], new: dict[str, str]) -> dict[str, tuple[str | None, str | None]]:
    """Changed Python files, leaving out files whose only change is the version number."""
    out = {}
    for path in sorted(set(old) | set(new)):
        a, b = old.get(path), new.get(path)
        if a == b:
            continue
        if a is not None and b is not None and _only_version(a, b):
            continue
        out[path] = (a, b)
    return out


def _only_version(a: str, b: str) -> bool:
    keep = lambda text: [line for line in text.splitlines() if not _VERSION_LINE.match(line)]
    return keep(a) == keep(b)


_CHANGELOG = re.compile(r"^(CHANGES|CHANGELOG|HISTORY|NEWS)(\.(rst|md|txt))?$", re.IGNORECASE)


def changelog_section(tree: Path, version: str) -> str:
    """The changelog text under the heading naming ``version`` (up to the next version heading)."""
    files = sorted(p for p in tree.rglob("*") if p.is_file() and _CHANGELOG.match(p.name))
    files += [p for p in (tree / "docs").glob("change*.rst")] if (tree / "docs").is_dir() else []
    heading = re.compile(rf"^\W*((version|release)\s+)?v?{re.escape(version)}\b", re.IGNORECASE)
    other = re.compile(r"^\W*((version|release)\s+)?v?\d+\.\d+(\.\d+)?\b", re.IGNORECASE)
    for path in files:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        for i, line in enumerate(lines):
            if heading.match(line):
                body = []
                for nxt in lines[i + 1:]:
                    if other.match(nxt) and body:
                        break
                    body.append(nxt)
                return "\n".join(body)
    return ""


def _clean_changelog(text: str) -> str:
    """Bullet lines of a changelog section, reST roles reduced to their text, headings and dates dropped."""
    text = re.sub(r":\w+:`~?([^`<]*?)(\s*<[^>]*>)?`", r"\1", text)
    text = text.replace("``", "`")
    items: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if (not stripped or set(stripped) <= set("-=~^*")
                or stripped.lower().startswith(("released", "unreleased"))):
            continue
        if stripped.startswith(("- ", "* ")):
            items.append(stripped[2:].strip())
        elif items and line.startswith((" ", "\t")):
            items[-1] += " " + stripped
    return "\n".join(f"- {item}" for item in items)


def pypi_fixes(name: str, versions: tuple[str, ...]) -> list[Fix]:
    return [fix for fix, notes in release_changes(name, versions) if keep(fix, notes)]


def release_changes(name: str, versions: tuple[str, ...]) -> Iterator[tuple[Fix, str]]:
    """Every adjacent release pair as a change, with the newer release's changelog section as written
    (what ``keep`` reads; the change's message is its fix items)."""
    for index, (old_v, new_v) in enumerate(itertools.pairwise(versions)):
        old_tree, new_tree = sdist_tree(name, old_v), sdist_tree(name, new_v)
        notes = changelog_section(new_tree, new_v)
        yield Fix(project=name, name=f"{name} {old_v}->{new_v}", before=old_tree,
                  changes=tree_changes(python_files(old_tree), python_files(new_tree)),
                  message=_message(_clean_changelog(notes), f"{name} {new_v}"),
                  prior=sdist_tree(name, versions[index - 1]) if index else None,
                  before_message=_message(_clean_changelog(changelog_section(old_tree, old_v)),
                                          f"{name} {old_v}")), notes


def _message(notes: str, fallback: str) -> str:
    items = [line[2:] for line in notes.splitlines() if line.startswith("- ")]
    fixes = [item for item in items if _FIX_WORDS.search(item)] or items
    if not fixes:
        return fallback
    subject = fixes[0] if len(fixes[0]) <= 100 else fixes[0][:97].rsplit(" ", 1)[0] + "..."
    body = "\n".join(f"- {item}" for item in fixes)
    return f"{subject}\n\n{body}"


def keep(fix: Fix, notes: str) -> bool:
    """A small Python fix: named as a fix, some source (not only tests) modified, within the size limits."""
    modified_source = [p for p in fix.source_paths() if None not in fix.changes[p]]
    return (bool(_FIX_WORDS.search(notes)) and bool(modified_source) and len(fix.changes) <= MAX_FILES
            and 0 < fix.changed_lines <= MAX_LINES)


# --- acode's own history ----------------------------------------------------------------------------

def git_tree(repo: Path, sha: str) -> Path:
    full = run(["git", "rev-parse", sha], cwd=repo).strip()
    tree = CACHE / "trees" / f"acode-{full[:12]}"
    if not tree.exists():
        tmp = partial_tree(tree)
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        data = subprocess.run(["git", "archive", "--format=tar", full], cwd=repo, check=True,
                              capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            t.extractall(tmp, filter="data")
        tmp.rename(tree)
    return tree


def acode_fixes(repo: Path, shas: tuple[str, ...] = ACODE_FIXES) -> list[Fix]:
    fixes = []
    for sha in shas:
        message = run(["git", "log", "-1", "--format=%B", sha], cwd=repo).strip()
        before, after = git_tree(repo, f"{sha}^"), git_tree(repo, sha)
        changes = {}
        for path in run(["git", "diff", "--name-only", f"{sha}^", sha, "--", "*.py"], cwd=repo).split():
            old, new = before / path, after / path
            changes[path] = (old.read_text(encoding="utf-8") if old.exists() else None,
                             new.read_text(encoding="utf-8") if new.exists() else None)
        fix = Fix(project="acode", name=f"acode {sha}", message=message, before=before, changes=changes,
                  commit=run(["git", "rev-parse", sha], cwd=repo).strip())
        if keep(fix, "fix"):
            fixes.append(fix)
    return fixes


# --- where `--run-tests` runs the projects' tests ----------------------------------------------------

# what the projects' own tests import beyond the standard library (their requirements/tests files)
TEST_REQUIREMENTS = ("pytest", "pytest-timeout", "pytest-xprocess", "cryptography", "watchdog",
                     "ephemeral-port-reserve", "simplejson", "pytz", "asgiref", "python-dotenv", "blinker",
                     "itsdangerous", "markupsafe", "werkzeug", "jinja2", "click")


# projects whose tests need older or more packages: flask's conftest reads `_pytest.monkeypatch.notset`
# (pytest<8); flask 2.x runs on Werkzeug 2 (with Werkzeug 3 most of its tests fail on both sides and show
# nothing); python-dotenv's command-line tests drive it through `sh`; soupsieve's tests select with
# Beautiful Soup (each parser it has); tomlkit's read the toml-spec tests' YAML; semver's setup.cfg
# asks pytest for coverage
TEST_PINS = {"flask": ("pytest<8",), "flask-2": ("pytest<8", "werkzeug<3"), "python-dotenv": ("sh",),
             "soupsieve": ("beautifulsoup4", "lxml", "html5lib"), "tomlkit": ("pyyaml",),
             "semver": ("pytest-cov",)}


def env_name(fix: Fix) -> str:
    """The ``TEST_PINS`` key of a fix's test environment: the project, or project-major for flask 2."""
    major = fix.name.split()[-1].split(".")[0] if " " in fix.name else ""
    key = f"{fix.project}-{major}"
    return key if key in TEST_PINS else fix.project


def test_env(project: str = "", acode_python: str = sys.executable) -> Path:
    """A virtual environment for the projects' tests (built once in the cache): the test requirements
    above (with ``TEST_PINS`` for ``project``), and acode's own environment behind them (a .pth file) so
    acode's tests find their imports. Each review puts the tree's own source first on PYTHONPATH, so the
    installed click, flask... are only the other projects' dependencies, never the code under test.
    Returns its ``bin`` folder."""
    pins = TEST_PINS.get(project, ())
    env = CACHE / ("testenv-" + project if pins else "testenv")
    ready = env / ".ready"
    if not ready.exists():
        shutil.rmtree(env, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(env)])
        python = env / "bin" / "python"
        run([str(python), "-m", "pip", "install", "--quiet", *TEST_REQUIREMENTS, *pins])
        # after the install, so pip does not count acode's packages as the tests' requirements
        site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
        theirs = run([acode_python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        (Path(site) / "acode-env.pth").write_text(theirs.strip() + "\n", encoding="utf-8")
        ready.write_text("ok\n", encoding="utf-8")
    return env / "bin"


def runtime_requirements(tree: Path) -> list[str]:
    """The project's declared runtime dependencies for this Python (extras left out): ``[project]
    dependencies`` of pyproject.toml, else the sdist's ``Requires-Dist`` lines."""
    import tomllib

    from packaging.requirements import InvalidRequirement, Requirement

    declared: list[str] = []
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
        declared = project.get("dependencies", [])
    if not declared and (tree / "PKG-INFO").is_file():
        declared = [line.split(":", 1)[1].strip() for line in
                    (tree / "PKG-INFO").read_text(encoding="utf-8", errors="replace").splitlines()
                    if line.startswith("Requires-Dist:")]
    out = []
    for text in declared:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
            out.append(str(requirement))
    return sorted(out)


def runtime_env(tree: Path) -> Path | None:
    """A virtual environment holding the runtime dependencies ``tree`` declares, as the environment of a
    user of the project has them (built once in the cache, shared by every tree that declares the same);
    None when it declares none. The behavioural diff reads it as the project's environment
    (``VIRTUAL_ENV``): the code under review imports its dependencies from it."""
    requirements = runtime_requirements(tree)
    if not requirements:
        return None
    key = hashlib.sha256("\n".join(requirements).encode()).hexdigest()[:12]
    env = CACHE / f"runtime-{key}"
    if not (env / ".ready").exists():
        shutil.rmtree(env, ignore_errors=True)
        run([sys.executable, "-m", "venv", str(env)])
        run([str(env / "bin" / "python"), "-m", "pip", "install", "--quiet", *requirements])
        (env / ".ready").write_text("\n".join(requirements) + "\n", encoding="utf-8")
    return env


# --- repositories -----------------------------------------------------------------------------------

def all_fixes(acode_repo: Path = REPO, projects: set[str] | None = None, which: str = "tuning") -> list[Fix]:
    """The fixes of one of ``RELEASE_SETS`` (the tuning set also has acode's own)."""
    out: list[Fix] = []
    if which == "tuning" and (projects is None or "acode" in projects):
        out += acode_fixes(acode_repo)
    for name, versions in RELEASE_SETS[which].items():
        if projects is None or name in projects:
            out += pypi_fixes(name, versions)
    return out


def _write(root: Path, files: dict[str, str | None]) -> None:
    for path, text in files.items():
        target = root / path
        if text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    run(["git", *args], cwd=root)


_IGNORED = shutil.ignore_patterns("__pycache__", "*.egg-info", ".git")
_IDENTITY = (("user.email", "bench@example.com"), ("user.name", "Bench"), ("commit.gpgsign", "false"))


def build(fix: Fix, direction: str, dest: Path, history: bool = False) -> Path:
    """A repository at ``dest``: branch `main` and the checked-out branch `change` (see the module doc)."""
    if dest.exists():
        shutil.rmtree(dest)
    new = {p: n for p, (_, n) in fix.changes.items()}
    old = {p: o for p, (o, _) in fix.changes.items()}
    if history and fix.commit:
        _acode_clone(fix, direction, dest)
    else:
        _main_branch(fix, dest, history, fixed=new if direction == "revert" else None)
    _git(dest, "switch", "-q", "-c", "change")
    if direction == "fix":
        _write(dest, new)
        message = fix.message
    else:
        _write(dest, {p: old[p] for p in fix.source_paths()})
        message = "Update " + ", ".join(PurePosixPath(p).name for p in fix.source_paths())
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", message)
    return dest


def _main_branch(fix: Fix, dest: Path, history: bool, fixed: dict[str, str | None] | None) -> None:
    """`main` holding ``fix.before`` (and the ``fixed`` files of the revert direction): one commit, or
    (``history``) the previous release, this one, and the fix as a commit of its own."""
    if not history:
        trees: list[tuple[Path | None, str]] = [(fix.before, f"{fix.project} before the change")]
    else:
        trees = ([(fix.prior, "previous release")] if fix.prior else []) + [(fix.before, fix.before_message)]
        if fixed is not None:
            trees.append((None, fix.message))
    dest.mkdir(parents=True)
    _git(dest, "init", "-q", "-b", "main")
    for key, value in _IDENTITY:
        _git(dest, "config", key, value)
    for index, (tree, message) in enumerate(trees):
        if tree is not None:
            for entry in dest.iterdir():
                if entry.name != ".git":
                    shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
            shutil.copytree(tree, dest, ignore=_IGNORED, dirs_exist_ok=True)
        if fixed is not None and index == len(trees) - 1:
            _write(dest, fixed)
        _git(dest, "add", "-A")
        _git(dest, "commit", "-q", "--allow-empty", "-m", message or f"{fix.project} release")


def _acode_clone(fix: Fix, direction: str, dest: Path) -> None:
    """acode's own repository as a clone has it, `main` at the fix (revert) or at its parent (fix)."""
    run(["git", "clone", "-q", "--no-checkout", str(REPO), str(dest)])
    for key, value in _IDENTITY:
        _git(dest, "config", key, value)
    _git(dest, "checkout", "-q", "-B", "main", fix.commit if direction == "revert" else f"{fix.commit}^")


def slug(fix: Fix) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "_", fix.name)


if __name__ == "__main__":
    import json

    found = all_fixes()
    print(json.dumps({"fixes": len(found), "by_project": {p: sum(f.project == p for f in found)
                                                          for p in dict.fromkeys(f.project for f in found)},
                      "items": [{"name": f.name, "files": len(f.changes), "lines": f.changed_lines,
                                 "subject": f.message.splitlines()[0][:100]} for f in found]}, indent=2))
