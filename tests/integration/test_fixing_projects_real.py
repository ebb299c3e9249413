"""The test-driven fixer on a project's shape with the real embedded 0.5B: `acode -p` naming only a
failing test whose bug is in a 600-line module of a `src/` package, exactly as a user asks for it."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.helpers.fixing_project import MEAN, TEST_BIG, big_module, project_files, traced
from tests.helpers.one_shot import fix_one_shot
from tests.helpers.repos import make_git_repo

REQUEST = "tests/test_big.py::test_mean fails; fix the bug (do not change the tests)"


@pytest.mark.real_model
def test_a_600_line_module_is_fixed_from_an_excerpt_by_the_real_model(tmp_path):
    repo = make_git_repo(tmp_path / "repo", project_files())
    original = big_module()
    data = fix_one_shot(repo, REQUEST)
    tools = [s for s in data["trajectory"] if s["type"] == "tool"]
    models = [s for s in data["trajectory"] if s["type"] == "model"]
    # only the named test runs; no tool loop: every model reply is code, not a tool call
    assert tools[0]["arguments"]["command"] == "python -m pytest -q tests/test_big.py::test_mean"
    # then its file whole, before any edit: a fix must not break test_offset next to it (and it ran
    # again for the candidate that passed, the last run of the trajectory)
    assert traced("python -m pytest -q tests/test_big.py").fullmatch(tools[1]["arguments"]["command"])
    assert models and all(not s["tool_calls"] for s in models)
    # the prompt holds the failing function, not the file: well under the file's own size in tokens
    assert all(s["usage"]["prompt_tokens"] * 3 < len(original) for s in models), [s["usage"] for s in models]
    after = (repo / "src/tool/big.py").read_text()
    head, tail = original.split(MEAN)
    # whatever happened, nothing outside `mean` changed, and the tests are as they were
    assert after.startswith(head) and after.endswith(tail), after
    assert (repo / "tests/test_big.py").read_text() == TEST_BIG
    # within the 0.5B's reach here (solved at attempt 1 in 28-34 s, load 7 on 2 shared cores)
    assert data["stop_reason"] == "answer", data.get("message")
    assert tools[-1]["arguments"]["command"] == "python -m pytest -q tests/test_big.py"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_big.py"]
    done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.real_model
def test_the_real_models_suspect_asks_show_one_function_and_change_only_it(tmp_path):
    """Both modules past max_file_lines: no file is shown, only the test spectrum's suspect functions, one
    at a time (range_line, spread, parse), then the one-line ask about each function given back unchanged
    (and samples, within the token budget). Each reply ends at its block and is merged into its file by
    name, so whatever the 0.5B writes, only the asked function can change, and the outcome tells the
    truth."""
    from tests.helpers.spectrum_project import FILES, REPORT, REQUEST, STATS

    repo = make_git_repo(tmp_path / "repo", FILES)
    # (no edit without a model: one of `spread`'s is the fix, and it would come before the asks here)
    data = fix_one_shot(repo, REQUEST, ACODE_AGENT__FIX__MAX_FILE_LINES="3", ACODE_AGENT__FIX__MUTANTS="0")
    models = [s for s in data["trajectory"] if s["type"] == "model"]
    assert models and all(not s["tool_calls"] for s in models), [s["text"] for s in models]
    # each suspect: its ask, then its line ask or none, and two rounds of samples at most
    assert len(models) <= 3 * (1 + 1 + 2), [s["text"] for s in models]
    # each reply ends at its block (the stop), not at the token limit
    assert all(s["finish_reason"] == "stop" for s in models), [(s["finish_reason"], s["usage"])
                                                                for s in models]
    written = [s["arguments"] for s in data["trajectory"]
               if s["type"] == "tool" and s["name"] == "write_file"]
    for args in written:
        old = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT}[args["file_path"]]
        before, after = _definitions(old), _definitions(args["content"])
        changed = {name for name in before if before[name] != after.get(name)}
        assert changed <= {"range_line", "spread", "parse"}, changed
    if data["stop_reason"] == "answer":
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "tests/test_report.py::test_range"]
        done = subprocess.run(argv, cwd=repo, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stdout[-2000:]
    else:
        assert (repo / "src/tool/stats.py").read_text() == STATS
        assert (repo / "src/tool/report.py").read_text() == REPORT


def _definitions(source: str) -> dict[str, str]:
    import ast

    tree = ast.parse(source)
    return {n.name: ast.dump(n) for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)}
