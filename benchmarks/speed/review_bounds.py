"""Time and memory of `acode review` on changes made to exhaust it (issue 47 item 11), for this source tree
and a baseline revision in the same run. Prints JSON.

    python benchmarks/speed/review_bounds.py [--sizes 1000 20000] [--baseline-rev <rev>]
        [--baseline-timeout 600] [--flood-mb 300] [--no-baseline]

- many files: a branch adding N one-line Python files, reviewed with `acode review run --base main
  --json` on the scripted model (no test run, no behavioural diff): seconds and exit code. One `git diff`
  (and `git show`, `git grep`) per file made 1,000 files take 34 s and 20,000 not finish in 500 s.
- flood: a branch adding a failing test that prints ``--flood-mb`` MB (pytest repeats it in its failure
  report, through the pipe), reviewed with `--run-tests`: the review process's peak memory (VmHWM),
  polled from /proc while it runs. ``communicate()`` kept all of it.

The baseline is ``--baseline-rev`` of this repository checked out into a temporary worktree, run with its
own ``src`` first on PYTHONPATH; a baseline run that does not finish within ``--baseline-timeout`` is
reported as such (the process group is ended).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
SCRIPT_STEPS = "\n".join(["- json: {findings: []}"] * 12) + "\n"
ENV = {"ACODE_MODEL__BACKEND": "scripted", "ACODE_REVIEWER__REQUIRE_CANDIDATES": "false",
       "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false", "ACODE_REVIEWER__REGRESSION__METHOD": "off",
       "ACODE_REVIEWER__TEST_TIMEOUT_SECONDS": "600"}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def branch_repo(path: Path, before: dict[str, str], after: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    identity = {"user.email": "bench@example.com", "user.name": "Bench", "commit.gpgsign": "false"}
    for key, value in identity.items():
        git(path, "config", key, value)
    for files, message in ((before, "base"), (after, "change")):
        for name, text in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text)
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", message)
        if message == "base":
            git(path, "switch", "-q", "-c", "feature")
    return path


def review(repo: Path, src: Path, args: list[str], timeout: float, work: Path) -> dict:
    """One review in its own process: seconds, exit code, peak memory of that process (MB)."""
    script = work / "script.yml"
    script.write_text(SCRIPT_STEPS)
    env = {**os.environ, **ENV, "ACODE_MODEL__SCRIPT": str(script), "ACODE_CONFIG_HOME": str(work / "config"),
           "PYTHONPATH": str(src)}
    started = time.monotonic()
    argv = [sys.executable, "-m", "acode", "review", "run", "--json", "--base", "main", *args]
    proc = subprocess.Popen(argv, cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    peak = 0
    while proc.poll() is None:
        if time.monotonic() - started > timeout:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"seconds": None, "timed_out_after": timeout, "peak_mb": peak}
        peak = max(peak, _hwm_mb(proc.pid))
        time.sleep(0.2)
    stderr = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    result = {"seconds": round(time.monotonic() - started, 1), "exit_code": proc.returncode, "peak_mb": peak}
    if proc.returncode not in (0, 50):
        result["error"] = stderr[-300:]
    return result


def _hwm_mb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--baseline-rev", default="33a0ce8")
    parser.add_argument("--baseline-timeout", type=float, default=600.0)
    parser.add_argument("--flood-mb", type=int, default=300)
    parser.add_argument("--no-baseline", action="store_true")
    options = parser.parse_args()
    out: dict = {"load_average": os.getloadavg(), "cpus": os.cpu_count(),
                 "baseline_rev": options.baseline_rev, "many_files": {}, "flood": {}}
    with tempfile.TemporaryDirectory(prefix="acode-bench-bounds-") as tmp:
        work = Path(tmp)
        trees = {"current": HERE / "src"}
        if not options.no_baseline:
            git(HERE, "worktree", "add", "-q", "--detach", str(work / "baseline"), options.baseline_rev)
            trees["baseline"] = work / "baseline" / "src"
        try:
            for size in options.sizes:
                files = {f"pkg/m{i}.py": f"value_{i} = {i}\n" for i in range(size)}
                repo = branch_repo(work / f"many-{size}", {"base.py": "x = 0\n"}, files)
                out["many_files"][size] = {name: review(repo, src, [], options.baseline_timeout, work)
                                           for name, src in trees.items()}
            flood = (f"def test_flood():\n    for _ in range({options.flood_mb}):\n"
                     "        print('x' * (1 << 20))\n    assert False\n")
            repo = branch_repo(work / "flood", {"calc.py": "def add(a, b):\n    return a + b\n"},
                               {"test_flood.py": flood})
            out["flood"] = {"mb_written": options.flood_mb} | {
                name: review(repo, src, ["--run-tests"], options.baseline_timeout, work)
                for name, src in trees.items()}
        finally:
            if not options.no_baseline:
                git(HERE, "worktree", "remove", "--force", str(work / "baseline"))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
