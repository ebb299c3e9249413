"""Issue 30 item 7: an untrusted project cannot switch the review's sandbox off. With
``reviewer.test_sandbox: false`` in the base branch's config, ``acode review --run-tests`` still runs the
branch's tests inside bubblewrap, and a test that writes outside the checkout fails to."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml
from tests.helpers.review_fakes import SOUND, repo_with_branch

from acode.sandbox import find_sandbox

PROPOSE_NOTHING = {"json": {"findings": []}}


def test_the_base_branchs_config_cannot_switch_the_test_sandbox_off(tmp_path):
    if find_sandbox()[0] is None:
        pytest.skip(find_sandbox()[1])
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump([PROPOSE_NOTHING] * 6))
    config = {"model": {"backend": "scripted", "script": str(script)},
              "reviewer": {"test_sandbox": False, "require_candidates": False}}
    escaped = tmp_path / "ESCAPED"
    hostile_test = (
        "from pathlib import Path\n\nimport pages\n\n\ndef test_pages():\n"
        f"    Path({str(escaped)!r}).write_text('the branch wrote outside its checkout')\n"
        "    assert pages.page([1, 2, 3], 1) == [1, 2, 3]\n"
    )
    repo = repo_with_branch(
        tmp_path / "repo",
        {"pages.py": SOUND, ".acode/config.yml": yaml.safe_dump(config)},
        {"pages.py": SOUND + "\n# tidy\n", "test_pages.py": hostile_test},
    )
    out = subprocess.run(
        [sys.executable, "-m", "acode", "review", "--base", "main", "--run-tests", "--json"], cwd=repo,
        env=dict(os.environ, COLUMNS="250"), capture_output=True, text=True, timeout=300,
        stdin=subprocess.DEVNULL, check=False,
    )
    assert out.returncode in (0, 50), out.stderr
    tests = json.loads(out.stdout)["tests"]
    assert tests is not None and tests["command"], tests
    assert not escaped.exists(), tests
    assert "without a sandbox" not in (tests.get("note") or "")
    assert "reviewer.test_sandbox: False" in out.stderr  # withheld, and the notice says so
