"""The first `acode review` in a fresh process, as a person runs it (``python -m acode review run --json``),
on a one-file sound change with a test: once where the project's tests decide (they agree on both sides,
so the review asks the model nothing) and once with the tests off (the likelihood check asks the model).
Used by ``review_latency.py --fresh-process``; ``--src`` picks the checkout whose code the processes run
(the before/after comparison of issue 28 item 6: load the model only when a step needs it)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BEFORE = '''"""Small arithmetic helpers."""


def add(a, b):
    """Return the sum of a and b."""
    return a + b


def scale(values, factor):
    """Multiply every value by factor."""
    return [v * factor for v in values]
'''
AFTER = BEFORE.replace("    return [v * factor for v in values]\n",
                       "    scaled = []\n    for value in values:\n        scaled.append(value * factor)\n"
                       "    return scaled\n")
TESTS = '''from util import add, scale


def test_add():
    assert add(2, 3) == 5


def test_scale():
    assert scale([1, 2], 3) == [3, 6]
'''
CASES = {"tests_decide_no_model_call": "--run-tests", "likelihood_check_needs_the_model": "--no-run-tests"}


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def build_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    _git(root, "init", "-q", "-b", "main")
    identity = {"user.email": "bench@example.com", "user.name": "Bench", "commit.gpgsign": "false"}
    for key, value in identity.items():
        _git(root, "config", key, value)
    (root / "util.py").write_text(BEFORE)
    (root / "test_util.py").write_text(TESTS)
    (root / ".acode").mkdir()
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Arithmetic helpers")
    _git(root, "switch", "-q", "-c", "loop")
    (root / "util.py").write_text(AFTER)
    _git(root, "commit", "-qam", "Write scale as a loop")
    return root


def review_once(repo: Path, flag: str, model: str, src: Path, config_home: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src), "ACODE_CONFIG_HOME": str(config_home)}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "acode", "review", "run", "--json", flag, "--model", model],
                          cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=1800)
    seconds = round(time.monotonic() - started, 2)
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"seconds": seconds, "exit_code": done.returncode, "error": done.stderr[-500:]}
    tokens = result.get("tokens") or {}
    return {"seconds": seconds, "exit_code": done.returncode, "decision": result["decision"]["verdict"],
            "model_calls": tokens.get("calls"), "prompt_tokens_evaluated": tokens.get("evaluated"),
            "said_preparing_the_model": "preparing the model" in done.stderr,
            "regression_note": (result.get("plan") or {}).get("regression_note", "")[:80]}


def fresh_process_report(model: str, src: Path, repeat: int) -> dict:
    report: dict = {"benchmark": "review_latency --fresh-process", "model": model, "src": str(src),
                    "load_average": [round(x, 2) for x in os.getloadavg()], "cases": {}}
    with tempfile.TemporaryDirectory(prefix="acode-first-review-") as tmp:
        repo = build_repo(Path(tmp) / "repo")
        for case, flag in CASES.items():
            runs = [review_once(repo, flag, model, src, Path(tmp) / "config") for _ in range(repeat)]
            print(json.dumps({"case": case, "runs": runs}), file=sys.stderr, flush=True)
            seconds = [r["seconds"] for r in runs]
            report["cases"][case] = {**runs[-1], "seconds": statistics.median(seconds),
                                     "runs_seconds": seconds}
    report["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return report
