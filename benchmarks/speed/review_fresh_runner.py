"""What a fresh CI runner pays before its first review (issue 48): a new venv, `pip install` of acode's
base package from this checkout (no extras: nothing is compiled), then one checks-only review (tests on
both sides, the behavioural diff, no model) of a one-function change that breaks its test. Cold: pip's
cache is not used; warm: it is. Prints JSON; `--record` keeps it in benchmarks/results/.

    python benchmarks/speed/review_fresh_runner.py [--record]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

REPO = Path(__file__).resolve().parents[2]
SOUND = 'def greet(name):\n    return f"hello {name}"\n'
CHANGED = 'def greet(name):\n    return f"hi {name}"\n'
TEST = 'from greet import greet\n\n\ndef test_greet():\n    assert greet("a") == "hello a"\n'


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def sample_branch(root: Path) -> Path:
    """A repository whose branch `feature` changes greet() and so breaks its test."""
    (root / "tests").mkdir(parents=True)
    (root / "greet.py").write_text(SOUND)
    (root / "tests" / "test_greet.py").write_text(TEST)
    for args in (["init", "-q", "-b", "main"], ["config", "user.email", "b@e.f"],
                 ["config", "user.name", "B"], ["add", "-A"], ["commit", "-q", "-m", "greet"],
                 ["switch", "-q", "-c", "feature"]):
        _git(root, *args)
    (root / "greet.py").write_text(CHANGED)
    _git(root, "commit", "-q", "-am", "greet says hi")
    return root


def one_runner(work: Path, sample: Path, cold: bool) -> dict:
    venv, home = work / "venv", work / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(HOME=str(home), ACODE_MODEL__BACKEND="none")
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *(["--no-cache-dir"] if cold else []),
           str(REPO)]
    subprocess.run(pip, check=True, env=env, capture_output=True)
    installed = time.monotonic()
    review = subprocess.run([str(venv / "bin" / "acode"), "review", "--base", "main", "--run-tests",
                             "--fresh", "--json"], cwd=sample, env=env, capture_output=True, text=True,
                            check=False)
    done = time.monotonic()
    report = json.loads(review.stdout) if review.stdout.startswith("{") else {}
    return {"install_s": round(installed - started, 1), "review_s": round(done - installed, 1),
            "total_s": round(done - started, 1), "exit_code": review.returncode,
            "verdict": report.get("decision", {}).get("verdict")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true", help="also keep the result in benchmarks/results/")
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    result = {}
    with tempfile.TemporaryDirectory() as tmp:
        sample = sample_branch(Path(tmp) / "sample")
        for mode in ("cold", "warm"):
            result[mode] = one_runner(Path(tmp) / mode, sample, cold=mode == "cold")
    result["target_s"] = 120
    print(json.dumps(result, indent=2))
    if args.record:
        from benchmarks.harness.results_record import write_record
        print(f"recorded in {write_record('review-fresh-runner', result, load_before=load_before)}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
