"""The search benchmark runs end to end on a small tree (the full stdlib run is the script's job)."""

from __future__ import annotations

from benchmarks.speed.search_bench import run_search_benchmark
from tests.helpers.repos import make_git_repo


def test_benchmark_reports_each_pattern(tmp_path):
    repo = make_git_repo(tmp_path / "r", {"a.py": "def f():\n    return 1\n", "b.py": "x = 'TODO'\n"})
    report = run_search_benchmark(patterns=["def f", "TODO"], repeats=1, tree=repo)
    rows = {row["pattern"]: row for row in report["patterns"]}
    assert rows["def f"]["rows"] == 1 and rows["TODO"]["rows"] == 1
    assert rows["def f"]["git_grep_lines"] == 1
    assert all(row["same_rows_both_engines"] for row in rows.values())
    assert all(row["git_grep_s"] > 0 and row["search_in_files_s"] > 0 for row in rows.values())
