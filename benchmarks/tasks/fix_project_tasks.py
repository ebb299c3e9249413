"""Fix tasks on real projects, built from the real-commit set's bug fixes
(benchmarks/tasks/real_commits_set.py: adjacent patch releases of click, jinja2, werkzeug, flask, sqlparse,
marshmallow; held back: cachetools, python-dotenv, markdown, tomli, idna; and the projects only this
benchmark uses, ``FIX_ONLY_RELEASES``).

Per fix:
- the repository is the project before the fix with the fix's tests (its changed test files): the source
  as it was, the tests as the fix left them;
- the failing tests are the fix's tests (pytest node ids) that fail on that tree and pass on the fixed
  one (pytest run on both trees in the project's test environment, ``real_commits_set.test_env``); a fix
  where no test flips is dropped, and why is recorded;
- success is: those node ids pass, and every test of their files that passes on the fixed tree passes
  (the hidden check: the fixed tree's results for those files).

The project runs in an environment of its own per repository (``project_python``): a virtual environment
whose ``python`` has the repository's source first on ``sys.path``, then the test environment's packages,
as a user's venv with the project installed in editable mode. The task names that ``python``.

Built tasks (and the dropped fixes with their reason) are cached in ``CACHE/fix_project_tasks.json``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.harness.grading import Grade, fail_to_pass_tests, grade
from benchmarks.harness.grouped import run_grouped
from benchmarks.tasks import real_commits_set as rcs

TASKS_FILE = rcs.CACHE / "fix_project_tasks.json"
BUILDER_VERSION = 1  # bump when the rules below change: the cached tasks are rebuilt
PROMPT = ("These tests fail: {ids}. Fix the bug in the code (not the tests) so they pass (run them with: "
          "{python} -m pytest -q {ids})")
_RESULT = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS) (\S.*?)(?: - .*)?$", re.MULTILINE)
_FRAME = re.compile(r"^([\w./-]+\.py):(\d+): ", re.MULTILINE)


@dataclass
class ProjectTask:
    name: str  # the fix: "click 8.1.6->8.1.7"
    project: str
    env: str  # the test environment (real_commits_set.env_name)
    failing: list[str]  # the node ids the task names (a function's id when all its parameters flip)
    flipped: list[str]  # every node id that fails before the fix and passes after it
    expected: dict[str, str]  # node id -> outcome on the fixed tree, for the files of ``flipped``
    module: str  # the one call's file: the test file's namesake, else the traceback's deepest project frame
    failing_output: str  # pytest on ``failing`` before the fix (what the one call is shown)

    @property
    def half(self) -> str:
        return half_of(self.name)

    @property
    def test_files(self) -> list[str]:
        return sorted({node.split("::")[0] for node in self.flipped})

    @property
    def fail_to_pass(self) -> list[str]:
        return self.flipped

    @property
    def pass_to_pass(self) -> list[str]:
        """The other tests of the flipped tests' files that pass on the fixed tree."""
        return [node for node, outcome in self.expected.items()
                if outcome == "PASSED" and node not in self.flipped]

    def prompt(self, python: Path) -> str:
        return PROMPT.format(ids=self.ids, python=python)

    @property
    def ids(self) -> str:
        """The failing node ids as a shell takes them (a parameter may hold a space: `test_x[a b]`)."""
        return " ".join(shlex.quote(node) for node in self.failing)


def half_of(name: str) -> str:
    """The deterministic split: a task is tuned on or reported by the parity of its name's hash."""
    return "tune" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "report"


# --- pytest results -----------------------------------------------------------------------------------

def parse_outcomes(output: str) -> dict[str, str]:
    """{node id: PASSED/FAILED/ERROR/XFAIL/XPASS} from the short summary of ``pytest -rA``."""
    return {match.group(2).strip(): match.group(1) for match in _RESULT.finditer(output)}


def named_ids(flipped: list[str], after: dict[str, str]) -> list[str]:
    """The node ids a user would name: a parametrized test by its function when every parameter that ran
    passes after the fix (then running the function is running the fix's tests), else each id."""
    out: list[str] = []
    for node in flipped:
        function = node.split("[")[0]
        variants = [n for n in after if n.split("[")[0] == function]
        name = function if all(after[n] == "PASSED" for n in variants) else node
        if name not in out:
            out.append(name)
    return out


def collection_errors(output: str, files: list[str]) -> list[str]:
    """The test files pytest could not import (``ERROR tests/test_x.py`` without a test name)."""
    outcomes = parse_outcomes(output)
    return [f for f in files if outcomes.get(f) == "ERROR"]


def run_tests(python: Path, root: Path, tests: list[str], timeout: float = 300.0,
              extra: tuple[str, ...] = ("-rA", "--tb=no")) -> tuple[dict[str, str], str]:
    try:
        command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout=60", *extra,
                   *tests]
        done = run_grouped(command, cwd=root, timeout=timeout, stdin=subprocess.DEVNULL)
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        output = f"timed out after {timeout:.0f} s\n{exc.stdout or ''}"
    return parse_outcomes(output), output


def solved(task: ProjectTask, python: Path, root: Path) -> Grade:
    """The hidden check: the flipped tests pass and the files' tests pass as on the fixed tree."""
    outcomes, _ = run_tests(python, root, task.test_files)
    return grade(outcomes, task.fail_to_pass, task.pass_to_pass)


# --- trees and environments ---------------------------------------------------------------------------

def fix_test_files(fix: rcs.Fix) -> list[str]:
    """The test modules the fix adds or changes (not conftest.py: it is applied, not run)."""
    return [path for path, (_, new) in fix.changes.items()
            if new is not None and rcs.is_test(path) and path.endswith(".py")
            and PurePosixPath(path).name.startswith("test_")]


def build_repo(fix: rcs.Fix, dest: Path, fixed: bool = False) -> Path:
    """A git repository of the project before the fix with the fix's tests (``fixed``: all of the fix)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(fix.before, dest, ignore=rcs._IGNORED)
    rcs._write(dest, {path: new for path, (_, new) in fix.changes.items() if fixed or rcs.is_test(path)})
    rcs._git(dest, "init", "-q", "-b", "main")
    for key, value in rcs._IDENTITY:
        rcs._git(dest, "config", key, value)
    rcs._git(dest, "add", "-A")
    rcs._git(dest, "commit", "-q", "-m", f"{fix.project}: the tests of the fix, the source before it")
    return dest


def project_python(root: Path, env_bin: Path, dest: Path) -> Path:
    """A virtual environment at ``dest`` whose python imports the project from ``root`` (its ``src/`` when
    it has one) before the test environment's packages: the project installed in editable mode."""
    if not (dest / "bin" / "python").exists():
        rcs.run([str(env_bin / "python"), "-m", "venv", "--without-pip", str(dest)])
    python = dest / "bin" / "python"
    site = rcs.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    theirs = rcs.run([str(env_bin / "python"), "-c",
                      "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
    source = root / "src" if (root / "src").is_dir() else root
    (Path(site) / "_project.pth").write_text(
        f"{source.resolve()}\nimport site; site.addsitedir({theirs!r})\n", encoding="utf-8")
    return python


def module_for(root: Path, test_files: list[str], output: str) -> str:
    """The file the one call is given: the project module the first test file is named after
    (tests/test_termui.py -> src/click/termui.py), else the deepest project frame of the traceback."""
    for test in test_files:
        stem = PurePosixPath(test).stem.removeprefix("test_")
        same = sorted(p.relative_to(root).as_posix() for p in root.rglob(f"{stem}.py")
                      if not rcs.is_test(p.relative_to(root).as_posix()) and ".git" not in p.parts)
        if same:
            return min(same, key=lambda p: (not p.startswith("src/"), len(p)))
    frames = [rel for m in _FRAME.finditer(output) if (rel := _in_project(root, m.group(1)))]
    return frames[-1] if frames else ""


def _in_project(root: Path, frame: str) -> str | None:
    """A traceback frame's file as a path in the project, None for a test or a file outside it (the
    test environment's packages, the standard library)."""
    path = Path(frame)
    if path.is_absolute():
        if not path.is_relative_to(root.resolve()):
            return None
        path = path.relative_to(root.resolve())
    rel = path.as_posix()
    installed = "site-packages" in path.parts or any(part.startswith(".") for part in path.parts)
    return rel if not installed and not rcs.is_test(rel) and (root / rel).is_file() else None


def build_task(fix: rcs.Fix, work: Path, env_bin: Path | None = None) -> ProjectTask | str:
    """The task of one fix, or why there is none (``env_bin``: the test environment, else the project's)."""
    tests = fix_test_files(fix)
    if not tests:
        return "the fix changes no test module"
    env_bin = env_bin or rcs.test_env(rcs.env_name(fix))
    slug = rcs.slug(fix)
    results = {}
    for fixed in (False, True):
        side = "fixed" if fixed else "buggy"
        root = build_repo(fix, work / f"{slug}-{side}", fixed=fixed)
        python = project_python(root, env_bin, work / f"{slug}-{side}-venv")
        results[side] = (root, python, *run_tests(python, root, tests))
    (buggy_root, buggy_python, before, before_out), (_, _, after, after_out) = results.values()
    broken = collection_errors(after_out, tests)
    if broken or not after:
        return "the fix's tests do not run on the fixed tree: " + (", ".join(broken) or after_out[-300:])
    if collection_errors(before_out, tests):
        return "the fix's test modules do not import before the fix (they import what the fix adds)"
    flipped = fail_to_pass_tests(before, after)
    if not flipped:
        failing_after = sum(o != "PASSED" for o in after.values())
        return f"no test flips ({len(after)} tests; {failing_after} not passing on the fixed tree)"
    failing = named_ids(flipped, after)
    _, shown = run_tests(buggy_python, buggy_root, failing, extra=("--tb=short",))
    files = sorted({node.split("::")[0] for node in flipped})
    expected = {node: outcome for node, outcome in after.items() if node.split("::")[0] in files}
    return ProjectTask(fix.name, fix.project, rcs.env_name(fix), failing, flipped, expected,
                       module_for(buggy_root, files, shown), shown[-4000:])


def load_tasks(which: str = "tuning", projects: set[str] | None = None,
               work: Path | None = None) -> tuple[list[ProjectTask], dict[str, str]]:
    """The tasks of one of ``rcs.RELEASE_SETS`` (built once, then read from ``TASKS_FILE``) and the dropped
    fixes' reasons."""
    cache = json.loads(TASKS_FILE.read_text()) if TASKS_FILE.exists() else {}
    if cache.get("version") != BUILDER_VERSION:
        cache = {"version": BUILDER_VERSION, "fixes": {}}
    fixes = [f for f in rcs.all_fixes(projects=projects, which=which) if f.project != "acode"]
    tasks, dropped = [], {}
    work = work or rcs.CACHE / "fix_project_build"
    for fix in fixes:
        entry = cache["fixes"].get(fix.name)
        if entry is None:
            built = build_task(fix, work)
            entry = {"dropped": built} if isinstance(built, str) else asdict(built)
            cache["fixes"][fix.name] = entry
            TASKS_FILE.write_text(json.dumps(cache, indent=1))
            print(f"{fix.name}: {entry.get('dropped') or entry['failing']}", file=sys.stderr, flush=True)
        if "dropped" in entry:
            dropped[fix.name] = entry["dropped"]
        else:
            tasks.append(ProjectTask(**entry))
    return tasks, dropped


@functools.cache  # once per task, not once per arm: it reads the project's releases
def fix_by_name(name: str) -> rcs.Fix:
    project = name.split()[0]
    releases = next(s[project] for s in rcs.RELEASE_SETS.values() if project in s)
    return next(f for f in rcs.pypi_fixes(project, releases) if f.name == name)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Build (or list) the real-project fix tasks.")
    parser.add_argument("--set", dest="which", choices=list(rcs.RELEASE_SETS), default="tuning")
    parser.add_argument("--projects", default="", help="comma-separated (default: all of the set)")
    args = parser.parse_args()
    chosen = {p for p in args.projects.split(",") if p} or None
    built, why = load_tasks(args.which, chosen)
    print(json.dumps({"tasks": [{"name": t.name, "half": t.half, "failing": t.failing, "module": t.module}
                                for t in built], "dropped": why}, indent=1))
