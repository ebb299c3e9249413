"""Cost of the trust checks added for issue 14, in this process, and how many hostile shell lines of
each class the approval policy holds (issue 30). Prints JSON.

    python benchmarks/security/trust_bench.py [--repeats 200] [--hostile-only]

- ``hostile``: per class of hostile input (``benchmarks/security/trust_hostile.py``), how many lines were
  tried (each in several hiding places and modes) and how many held, with the first few that did not, so
  the next probe can be compared with this one.

- ``shell_rules``: judging one command line (tree-sitter-bash parse + rules), median microseconds,
  for a few typical lines.
- ``search``: ``grep_search`` on a small git repository (50 files): a literal pattern (searched in this
  process) against a regex pattern (searched in the forkserver worker that a timeout can kill), median ms.
- ``safe_git``: the ``-c`` options added to every git call, and the time to read the repository's
  config keys (cached per .git/config modification time).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

if not __package__:  # run by its path: the repository root first, for the `benchmarks.` imports
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.security.trust_hostile import benign_report, hostile_report

LINES = [
    "pytest -q tests/unit",
    "git status && git diff --stat",
    "ls -la | grep foo | wc -l",
    "for f in *.py; do python -m py_compile \"$f\" || echo bad; done > compile.log 2>&1",
    "timeout 60 bash -c 'cd src && make -j2' && echo $(date)",
]


def _median_us(function, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        function()
        samples.append(time.perf_counter() - started)
    return round(statistics.median(samples) * 1e6, 1)


def bench_shell_rules(repeats: int, workspace: Path) -> dict:
    from acode.agent.approval.shell_rules import judge_shell

    judge_shell("true", deny=[], allow=[], mode="default", workspace=workspace)  # load the grammar once
    return {
        line: _median_us(
            lambda line=line: judge_shell(line, deny=["rm"], allow=["pytest", "git", "ls"], mode="default",
                                          workspace=workspace),
            repeats,
        )
        for line in LINES
    }


def bench_search(repeats: int, repo: Path) -> dict:
    from acode.llm.types import ToolCall
    from acode.tools.base import ToolContext, ToolRegistry
    from acode.tools.search import GrepSearch

    registry, ctx = ToolRegistry([GrepSearch()]), ToolContext(workspace=repo)

    def run(pattern: str) -> None:
        result = registry.dispatch(ToolCall(name="grep_search", arguments={"pattern": pattern}), ctx)
        assert result.ok, result.error

    run("warm.*up")  # starts the forkserver once
    return {
        "literal 'value_17' (in process) ms": round(_median_us(lambda: run("value_17"), repeats) / 1000, 2),
        "regex 'value_1[0-9]+' (worker) ms": round(
            _median_us(lambda: run("value_1[0-9]+"), repeats) / 1000, 2),
    }


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(50):
        (root / f"m{i}.py").write_text("".join(f"value_{j} = {j}\n" for j in range(200)))
    for args in (["init", "-q"], ["add", "-A"],
                 ["-c", "user.email=a@b", "-c", "user.name=b", "commit", "-qm", "i"]):
        subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)
    return root


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--hostile-only", action="store_true", help="only the hostile-input classes")
    args = parser.parse_args()
    from acode.gitcmd import read_overrides, safe_git

    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp) / "repo")
        hostile = hostile_report(repo)
        totals = {key: sum(c[key] for c in hostile.values()) for key in ("tried", "held")}
        benign = benign_report(repo)
        if args.hostile_only:
            print(json.dumps({"hostile": hostile, "hostile_total": totals, "benign": benign}, indent=2))
            return
        started = time.perf_counter()
        read_overrides(repo)
        config_read_ms = round((time.perf_counter() - started) * 1000, 2)
        report = {
            "shell_rules_median_us": bench_shell_rules(args.repeats, repo),
            "search_median": bench_search(max(5, args.repeats // 10), repo),
            "safe_git": {"args": safe_git(repo, "status")[:-1], "config_read_ms_uncached": config_read_ms},
            "hostile": hostile,
            "hostile_total": totals,
            "benign": benign,
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
