"""`acode review` loads the model only when a step asks it something (issue 28 item 6): the real 0.5B, in a
fresh `acode review` process as a person runs it, and the lazy model against the loaded one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.helpers.one_shot import REAL_MODEL
from tests.helpers.repos import make_git_repo

from acode.llm.lazy import LazyEmbeddedModel
from acode.llm.types import Message

pytestmark = pytest.mark.real_model

# `python -m acode ARGS`, then, on the way out, how many embedded models the process loaded.
RUN_AND_COUNT_LOADS = """
import atexit, runpy, sys
def report():
    from acode.llm import factory
    sys.stderr.write(f"\\nLOADED_MODELS {len(factory._embedded_cache)}\\n")
atexit.register(report)
sys.argv = ["acode", *sys.argv[1:]]
runpy.run_module("acode", run_name="__main__")
"""

BEFORE = "def clamp(value, low, high):\n    return max(low, min(value, high))\n"
AFTER = BEFORE.replace("max(low, min(value, high))", "min(high, max(value, low))")
TESTS = ("from limits import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n"
         "    assert clamp(-1, 0, 3) == 0\n    assert clamp(2, 0, 3) == 2\n")


@pytest.fixture
def repo(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"limits.py": BEFORE, "test_limits.py": TESTS, ".acode/.keep": ""})
    subprocess.run(["git", "switch", "-q", "-c", "rewrite"], cwd=repo, check=True)
    (repo / "limits.py").write_text(AFTER)
    subprocess.run(["git", "commit", "-qam", "Clamp from the top"], cwd=repo, check=True)
    return repo


def review(repo, *flags: str) -> tuple[dict, str, int]:
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_COUNT_LOADS, "review", "run", "--json", "--model", REAL_MODEL, *flags],
        cwd=repo, capture_output=True, text=True, timeout=600, check=False,
        # the behavioural diff finds where the two clamps differ (low > high) and asks the model about it: a
        # step that needs the model (its own tests: test_review_behaviour_diff.py); here no step does
        env={**os.environ, "ACODE_REVIEWER__BEHAVIOUR__ENABLED": "false"},
    )
    loads = int(done.stderr.rsplit("LOADED_MODELS ", 1)[1].split()[0])
    return json.loads(done.stdout), done.stderr, loads


def test_a_review_the_tests_decide_never_loads_the_model(repo):
    result, stderr, loads = review(repo, "--run-tests")
    assert result["decision"]["verdict"] == "APPROVED", stderr
    assert "give every test the same result" in result["plan"]["regression_note"]
    assert result["tokens"]["calls"] == 0
    assert loads == 0 and "preparing the model" not in stderr
    # no model step ran, so the diff was never packed for one (issue 48: no tokenizer, no backend needed)
    assert result["packing"]["included"] == []


def test_a_review_whose_likelihood_check_asks_the_model_loads_it_and_says_so(repo):
    result, stderr, loads = review(repo, "--no-run-tests")
    assert result["tokens"]["calls"] > 0 and loads == 1
    assert f"preparing the model {REAL_MODEL}" in stderr


def test_the_lazy_model_counts_like_the_loaded_one_and_loads_on_the_first_call(real_model,
                                                                                real_model_settings):
    said: list[str] = []
    lazy = LazyEmbeddedModel(real_model_settings, say=said.append)
    texts = ["def add(a, b):\n    return a + b\n", "héllo wörld <|im_start|> 🙂", "x" * 300, ""]
    assert [lazy.count_tokens(t) for t in texts] == [real_model.count_tokens(t) for t in texts]
    assert (lazy.name, lazy.context_window) == (real_model.name, real_model.context_window)
    assert not lazy.loaded and said == []
    answer = lazy.complete([Message.user("Reply with the word OK.")], max_tokens=3)
    assert lazy.loaded and answer.usage.completion_tokens > 0
    assert said == [f"preparing the model {REAL_MODEL}"]
    assert lazy.model() is real_model  # one llama.cpp instance per file and shape per process
    assert lazy.count_tokens(texts[0]) == real_model.count_tokens(texts[0])
