"""The behavioural diff's child processes: one sandboxed ``runner.py`` for all the functions of a
review (restarted for the rest when one brings it down), CrossHair's ``diffbehavior`` per function, and
Hypothesis' Unicode tables prepared once per user so no child spends seconds rebuilding them.

Every child runs in bubblewrap (``acode.sandbox``: no network, the file system read-only but for one scratch
folder, credentials hidden) in its own process group, killed when its time box runs out."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from acode.capped_run import run_capped
from acode.child_signals import with_default_signals
from acode.paths import user_cache_dir
from acode.sandbox import Sandbox, sandbox_env

RUNNER = Path(__file__).with_name("runner.py")
# the copies keep the names the child always ran under (``runner.py``, ``runner_*.py``):
# the code under review sees them (its argv[0]), and a child must not run differently for a move of acode's
CHILD_PREFIX = "behaviour_"
# why a function is not compared when importing its new version (after the old one imported) hung or ended
# the child: the change made the evidence unavailable (``diff.withheld``)
IMPORT_STOPPED = "with the change: importing the module "
IN_FLIGHT = "in-flight.json"  # the runner's note of the input the new version is running on (its IN_FLIGHT)
SHIM = """import importlib.util, json, sys
_spec = importlib.util.spec_from_file_location("acode_behaviour_runner", {runner!r})
_runner = importlib.util.module_from_spec(_spec)
sys.modules["acode_behaviour_runner"] = _runner
_spec.loader.exec_module(_runner)
_s = json.load(open({spec!r}))
sys.path.extend(p for p in _s.get("site_packages", []) if p not in sys.path)
old = _runner.load(_s["old_root"], _s["module"], _s["qualname"], _s["kind"])[1]
new = _runner.load(_s["new_root"], _s["module"], _s["qualname"], _s["kind"])[1]
"""
_GIVEN = re.compile(r"^Given: \((?P<input>.*)\),?\s*$")
CHILD_OUTPUT_BYTES = 4 << 20  # CrossHair's report is read from it; a child printing more is cut
STARTUP_SECONDS = 8.0  # a child's Python, Hypothesis or CrossHair imports, on a busy machine
CROSSHAIR_START = 2.0  # what CrossHair's process costs besides its search (imports, z3), for the time plan
# Hypothesis builds its Unicode tables (every character's category, what UTF-8 encodes) the first time a
# text strategy is drawn and caches them in its storage folder: ~2.5 s of a child's ~3 s when the folder is
# the child's fresh scratch folder. Built once here by a trusted process (no code under review), copied in.
_TABLES_WARMUP = """from hypothesis import given, settings, strategies as st
@settings(max_examples=3, database=None)
@given(st.text(max_size=3))
def draw(text):
    pass
draw()
"""


def project_site_packages(root: Path, env: dict[str, str] | None = None) -> list[str]:
    """The site-packages of the project's own Python environment, where the code under review finds its
    dependencies when acode is installed elsewhere (pipx, its own venv): the activated one (``VIRTUAL_ENV``,
    as ``uv run`` sets it), else the repository's ``.venv`` or ``venv``. The runner puts it after its own
    path, so acode's Hypothesis and CrossHair (and any package both have) come from acode's environment.
    None when it is acode's own environment or built for another Python version (its compiled packages would
    not load here)."""
    env = os.environ if env is None else env
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    own = Path(sys.prefix).resolve()
    for raw in (env.get("VIRTUAL_ENV", ""), root / ".venv", root / "venv"):
        if not raw:
            continue
        venv = Path(raw).resolve()
        site = venv / "lib" / version / "site-packages"
        if venv != own and (venv / "pyvenv.cfg").is_file() and site.is_dir():
            return [str(site)]
    return []


@dataclass
class Where:
    sandbox: Sandbox | None
    io: Path  # the only writable folder
    readable: list[Path]
    cwd: Path


def child(argv: list[str], where: Where, timeout: float) -> tuple[int | None, str]:
    """(exit code, output) of ``argv`` in the sandbox; exit None when it ran out of time (killed)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONPATH=str(where.io))
    if where.sandbox is not None:
        readable = [p for p in where.readable if p.resolve().is_relative_to(Path("/tmp").resolve())]
        argv = where.sandbox.command(argv, writable=[where.io], cwd=where.io, readable=readable, env=env)
        env = sandbox_env(env)
    run = run_capped(argv, cwd=where.io, env=env, timeout=max(1.0, timeout), keep=CHILD_OUTPUT_BYTES)
    return run.returncode, "" if run.returncode is None else run.output


@dataclass
class Batch:
    done: list[dict]  # the runner's result for the first functions of the batch it finished
    stopped: str = ""  # why it stopped before the last ('' when it finished them all)
    hang: dict | None = None  # the input the new version never returned on when the box ran out (old did)


def run_batch(specs: list[dict], runner: Path, where: Where, plan_seconds: float, box: float) -> Batch:
    """The runner on ``specs`` (it writes each result as soon as it has it, so what it finished is kept)."""
    spec_file, out = where.io / "batch.json", where.io / "out.json"
    in_flight = where.io / IN_FLIGHT
    spec_file.write_text(json.dumps({"functions": specs, "plan_seconds": plan_seconds}), encoding="utf-8")
    out.unlink(missing_ok=True)
    in_flight.unlink(missing_ok=True)
    code, output = child([sys.executable, str(runner), str(spec_file), str(out)], where, box)
    done = _json(out) or []
    if len(done) >= len(specs):
        return Batch(done)
    note = _json(in_flight)
    if note and note.get("importing") and note.get("index") == len(done):  # the old version imported
        how = (f"did not finish in the child's time box ({box:.0f} s)" if code is None
               else f"ended the child ({_last_line(output, code)})")
        return Batch(done, IMPORT_STOPPED + how)
    if code is None:
        hang = note
        if hang and hang.get("index") == len(done):
            took = "under 0.01" if hang["seconds"] < 0.01 else f"{hang['seconds']:.2f}"
            hang = {"input": hang["input"], "old": hang["old"], "found_by": "time box", "what": "result",
                    "kind": "hang", "new": (f"does not finish: the child's time box ({box:.0f} s) ran out on "
                                            f"it (the old version returned in {took} s)")}
        return Batch(done, f"did not finish in its time box ({box:.0f} s)",
                     hang if hang and "kind" in hang else None)
    return Batch(done, f"the runner failed ({_last_line(output, code)})")


def _last_line(output: str, code: int | None) -> str:
    return (output.strip().splitlines() or [f"exit {code}"])[-1][:200]


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def crosshair(spec: dict, runner: Path, where: Where, seconds: float) -> dict | None:
    """CrossHair's symbolic search for an input where the two versions of ``spec``'s function differ, with
    ``seconds`` of CPU per condition; the difference, or None."""
    spec_file = where.io / "crosshair-spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    (where.io / "acode_behaviour_shim.py").write_text(SHIM.format(runner=str(runner), spec=str(spec_file)),
                                                      encoding="utf-8")
    argv = [sys.executable, "-m", "crosshair", "diffbehavior", "acode_behaviour_shim.old",
            "acode_behaviour_shim.new", "--exception_equivalence", "SAME_TYPE",
            "--per_condition_timeout", f"{seconds:g}"]
    code, output = child(argv, where, seconds * 3 + STARTUP_SECONDS)
    return parse_crosshair(output, spec["qualname"]) if code == 1 else None


def copy_runner(folder: Path) -> Path:
    """The runner copied into ``folder`` (the path of the copy), with the ``runner_*.py`` files it loads from
    its own folder, each named with ``CHILD_PREFIX``."""
    for helper in RUNNER.parent.glob("runner_*.py"):
        shutil.copy(helper, folder / f"{CHILD_PREFIX}{helper.name}")
    return Path(shutil.copy(RUNNER, folder / f"{CHILD_PREFIX}{RUNNER.name}"))


def parse_crosshair(output: str, name: str) -> dict | None:
    """``Given: (x=1), / old : returns 1 / new : returns 2`` -> the difference, or None."""
    lines = output.splitlines()
    for number, line in enumerate(lines):
        given = _GIVEN.match(line.strip())
        if not given:
            continue
        sides = {}
        for follow in lines[number + 1:number + 3]:
            label, _, what = follow.strip().partition(" : ")
            sides[label.rsplit(".", 1)[-1]] = what.strip()
        if "old" in sides and "new" in sides:
            return {"input": f"{name}({given.group('input')})", "old": sides["old"], "new": sides["new"],
                    "found_by": "crosshair", "what": "result"}
    return None


def seed_hypothesis_tables(io: Path, cache: Path | None = None) -> bool:
    """Hypothesis' Unicode tables in ``io``'s ``.hypothesis`` folder (the child's working folder), built into
    ``cache`` (default: acode's user cache) the first time; False when they could not be built (the child
    then builds them itself, as before)."""
    cache = cache or user_cache_dir() / "hypothesis"
    tables = cache / "unicode_data"
    if not tables.is_dir():
        env = {**os.environ, "HYPOTHESIS_STORAGE_DIRECTORY": str(cache)}
        try:
            subprocess.run(with_default_signals([sys.executable, "-c", _TABLES_WARMUP]), env=env, cwd=io,
                           capture_output=True, timeout=120, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    if not tables.is_dir():
        return False
    shutil.copytree(tables, io / ".hypothesis" / "unicode_data", dirs_exist_ok=True)
    return True
