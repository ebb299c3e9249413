"""Issue 28 item 2 with the real embedded 0.5B model: `acode -p` in the default approval mode without a
terminal, asked for an edit. Every edit is denied; the model's last words are not the outcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.helpers.one_shot import REAL_MODEL
from tests.helpers.repos import make_git_repo

UTIL = "def add(a, b):\n    return a + b\n"


@pytest.mark.real_model
def test_a_denied_edit_is_exit_1_with_the_reason_whatever_the_model_answers(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": UTIL})
    (repo / ".acode").mkdir()  # the project root, whatever folders above hold
    env = {**os.environ, "ACODE_MODEL__MAX_TOKENS": "200", "ACODE_AGENT__MAX_TURNS": "6"}
    argv = [sys.executable, "-m", "acode", "-p", "In util.py, change add so that it returns a - b.",
            "--model", REAL_MODEL, "--backend", "embedded", "--json"]
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, timeout=1200,
                         stdin=subprocess.DEVNULL, check=False)
    data = json.loads(out.stdout)
    tools = [s for s in data["trajectory"] if s["type"] == "tool"]
    assert tools and all(t["decision"] == "denied" for t in tools), tools
    assert (repo / "util.py").read_text() == UTIL
    # measured (greedy, so the same every run): two identical write_file calls are denied, then the
    # model may only answer, and it answers as if it had done something; the run says what happened
    assert out.returncode == 1 and data["exit_code"] == 1, out.stderr[-2000:]
    assert data["stop_reason"] == "change_not_made", (data["stop_reason"], data["message"])
    assert "the requested change was not made" in out.stderr
