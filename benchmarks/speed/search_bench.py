"""search_in_files on a large tree (the Python standard library's .py sources, copied into a temporary
git repository) against plain ``git grep`` on the same tree in the same run. Prints JSON.

    python benchmarks/speed/search_bench.py [--repeats 3] [--pattern REGEX ...]

``run_search_benchmark()`` is importable (benchmarks/speed/agent.py uses it)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

DEFAULT_PATTERNS = (r"def __init__\(self", "TODO|FIXME", r"^import (os|sys)$", "asyncio",
                    "no_such_identifier_xyz")


def build_stdlib_repo(target: Path) -> dict:
    """Copy every .py file of the standard library (no site-packages, no caches) and commit it."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = total = 0
    for folder, dirs, names in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
        for name in names:
            if name.endswith(".py"):
                source = Path(folder) / name
                dest = target / source.relative_to(stdlib)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, dest)
                files += 1
                total += dest.stat().st_size
    git = ["git", "-c", "user.email=bench@example.com", "-c", "user.name=bench", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], cwd=target, check=True)
    subprocess.run([*git, "add", "-A"], cwd=target, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "stdlib"], cwd=target, check=True)
    return {"source": str(stdlib), "files": files, "bytes": total}


def _median_seconds(action: Callable[[], object], repeats: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def run_search_benchmark(
    patterns: Sequence[str] = DEFAULT_PATTERNS, repeats: int = 3, tree: Path | None = None,
    max_results: int = 50
) -> dict:
    """Median wall time per pattern for: plain ``git grep``, the search_in_files tool (auto engine,
    which lists files with git and locates lines with git grep), and the same tool forced to the
    pure-Python engine."""
    from acode.llm.types import ToolCall
    from acode.tools.base import ToolContext, ToolRegistry
    from acode.tools.search import SearchInFiles

    with tempfile.TemporaryDirectory(prefix="acode-search-bench-") as scratch:
        root = Path(tree) if tree else Path(scratch) / "stdlib"
        info = {"source": str(root)}
        if tree is None:
            root.mkdir()
            info = build_stdlib_repo(root)
        ctx = ToolContext(workspace=root)
        tools = {name: ToolRegistry([SearchInFiles(engine=name)]) for name in ("auto", "python")}
        rows = []
        for pattern in patterns:
            call = ToolCall(name="search_in_files",
                            arguments={"pattern": pattern, "max_results": max_results})
            git_s, git_out = _median_seconds(
                lambda p=pattern: subprocess.run(
                    ["git", "grep", "-n", "-I", "-i", "-P", "-e", p], cwd=root, capture_output=True,
                    check=False
                ).stdout,
                repeats,
            )
            tool_s, result = _median_seconds(lambda c=call: tools["auto"].dispatch(c, ctx), repeats)
            python_s, python_result = _median_seconds(lambda c=call: tools["python"].dispatch(c, ctx),
                                                      repeats)
            assert result.ok and python_result.ok, (result.error, python_result.error)
            rows.append(
                {
                    "pattern": pattern,
                    "git_grep_s": round(git_s, 4),
                    "git_grep_lines": git_out.count(b"\n"),
                    "search_in_files_s": round(tool_s, 4),
                    "search_in_files_python_engine_s": round(python_s, 4),
                    "ratio_tool_vs_git_grep": round(tool_s / git_s, 2) if git_s else None,
                    "rows": len(result.data["matches"]),
                    "same_rows_both_engines": result.data == python_result.data,
                }
            )
    return {
        "benchmark": "search_in_files vs git grep",
        "tree": info,
        "repeats": repeats,
        "max_results": max_results,
        "cpu_count": os.cpu_count(),
        "patterns": rows,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pattern", action="append", help="regex to time (repeatable)")
    parser.add_argument("--tree", type=Path, help="search this git repository instead of a stdlib copy")
    args = parser.parse_args(argv)
    report = run_search_benchmark(args.pattern or DEFAULT_PATTERNS, args.repeats, args.tree)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
