"""With no model (``model.backend: none``) a fixing request still gets the candidates that need none (a
source's ``needs_model``: ruff's fixes, crash edits, one-token edits), through ``acode -p`` as a script
runs it. Before, the first model call of the pipeline ended the run with ACODE-MODEL-013 and the
one-token edit that fixes ``a - b`` was never tried."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.repos import make_git_repo

TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def fix_without_a_model(repo: Path) -> dict:
    env = dict(os.environ, ACODE_MODEL__BACKEND="none")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # `python` has pytest
    done = subprocess.run([sys.executable, "-m", "acode", "-p", "fix the failing test in test_calc.py",
                           "--approval-mode", "yolo", "--json"], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, check=False)
    return json.loads(done.stdout) | {"returncode": done.returncode, "stderr": done.stderr}


def test_a_one_token_fix_needs_no_model(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a - b\n",
                                              "test_calc.py": TESTS})
    result = fix_without_a_model(repo)
    assert result["returncode"] == 0, result
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    assert "`return a - b` -> `return a + b` at calc.py:2, no model call" in result["answer"]
    assert result["turns"] == 0 and result["tokens"]["completion_tokens"] == 0


def test_without_a_fix_that_needs_no_model_the_run_says_why(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return 7\n",
                                              "test_calc.py": TESTS})
    result = fix_without_a_model(repo)
    assert (result["returncode"], result["stop_reason"]) == (1, "tests_failing"), result
    assert "No model is configured (model.backend: none)" in result["message"]
    assert (repo / "calc.py").read_text() == "def add(a, b):\n    return 7\n"
