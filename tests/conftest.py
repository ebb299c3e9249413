"""Fixtures every test shares: isolated user config, temporary git repositories, the scripted model,
and the real embedded 0.5B model (session-scoped: loading it costs a few seconds)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from tests.helpers.one_shot import REAL_MODEL
from tests.helpers.repos import make_git_repo

from acode.llm.scripted import ScriptedModel

# what `acode review` reads to find a pull/merge request's target (acode.review.change.ci_target)
CI_VARIABLES = {"GITHUB_ACTIONS", "GITHUB_BASE_REF", "GITHUB_HEAD_REF", "GITHUB_STEP_SUMMARY", "GITLAB_CI",
                "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "CI_MERGE_REQUEST_DIFF_BASE_SHA",
                "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "BITBUCKET_PR_DESTINATION_BRANCH",
                "SYSTEM_PULLREQUEST_TARGETBRANCH"}
# No test inherits the terminal size of whoever runs the suite (pytest-xdist's workers start with
# COLUMNS=80): taken away before any test module imports acode, whose consoles read it once; a test that
# needs a width sets it.
# Nor the variables that change what a test runner prints: pytest stops cutting its summary lines and
# assertion diffs when CI or BUILD_NUMBER is set (every CI runner sets CI), and colour is forced or
# refused by the others. Tests that compare a child pytest's output with a stored record (the fixer's
# record, the one-call benchmark) would otherwise pass on a laptop and fail on the runner. A test about
# one of them sets it itself.
RUNNER_OUTPUT_VARIABLES = ("COLUMNS", "LINES", "CI", "BUILD_NUMBER", "PYTEST_ADDOPTS", "FORCE_COLOR",
                           "PY_COLORS", "NO_COLOR")
for _name in RUNNER_OUTPUT_VARIABLES:
    os.environ.pop(_name, None)
# The suite runs as a foreground process does, however it was started: a shell without job control starts
# `cmd &` with SIGINT and SIGQUIT ignored, every child inherits that, and the tests that press Ctrl-C on a
# child (or on this process) would wait for nothing. tests/unit/test_child_signals.py ignores them itself.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGQUIT) == signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
# scripts/test.sh runs the suite on every core (pytest-xdist). A model then gets its share of the cores:
# llama.cpp's threads wait for each other at every layer, so two models of two threads each on two cores
# run several times slower than two of one thread (acode.llm.threads.default_threads samples the idle
# cores for a fifth of a second, which can fall between two bursts of another worker).
WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
MODEL_THREADS = str(max(1, (os.cpu_count() or 1) // WORKERS)) if WORKERS > 1 else None


@pytest.fixture(autouse=True)
def _isolated_user_config(tmp_path_factory, monkeypatch):
    """No test reads the developer's ~/.config/acode or ACODE_* variables, nor a CI job's pull request."""
    for name in list(os.environ):
        if name.startswith("ACODE_") and name != "ACODE_CACHE_DIR" or name in CI_VARIABLES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ACODE_CONFIG_HOME", str(tmp_path_factory.mktemp("user-config")))
    for name in RUNNER_OUTPUT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    if MODEL_THREADS:
        monkeypatch.setenv("ACODE_MODEL__THREADS", MODEL_THREADS)


@pytest.fixture
def idle_stdin():
    """File descriptor 0 is a pipe that stays open and never has data (an idle terminal) for the test: a
    child process that inherits it and reads waits until its time limit."""
    read_end, write_end = os.pipe()
    saved = os.dup(0)
    os.dup2(read_end, 0)
    try:
        yield
    finally:
        os.dup2(saved, 0)
        for fd in (saved, read_end, write_end):
            os.close(fd)


@pytest.fixture
def git_repo(tmp_path) -> Path:
    return make_git_repo(tmp_path / "repo")


@pytest.fixture
def scripted():
    """``scripted(step, step, ...)`` -> a ScriptedModel replaying those steps."""
    return lambda *steps, **kw: ScriptedModel(list(steps), **kw)


@pytest.fixture(scope="session")
def real_model_settings():
    from acode.config.model import ModelSettings

    threads = int(MODEL_THREADS) if MODEL_THREADS else None
    return ModelSettings(backend="embedded", name=REAL_MODEL, context_window=4096, threads=threads)


@pytest.fixture(scope="session")
def real_model(real_model_settings):
    """The real embedded 0.5B model. Never skipped: CI must exercise it."""
    from acode.llm.factory import build_model

    return build_model(real_model_settings)
