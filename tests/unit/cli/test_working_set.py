"""aider's working set and checks in the chat (issue 28, item 11), in a real terminal (pexpect) with the
scripted model: ``/add`` and ``/read-only`` keep files in every prompt until ``/drop``, edits to a read-only
file are denied, ``/test`` hands failing tests to the test-driven fixer, ``/lint`` hands problems to the
agent, ``/init`` writes a starter ACODE.md."""

from __future__ import annotations

import sys

import pexpect
import pytest
from tests.helpers.agent_cli import PROMPT, cli_env, write_script
from tests.helpers.chat import last_session_messages, quit_chat
from tests.helpers.repos import make_git_repo

BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = "from util import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"


def chat(repo, script, *args, **env) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--backend", "scripted", *args], cwd=str(repo),
                          env={**cli_env(script), **env}, encoding="utf-8", timeout=60, dimensions=(40, 120))
    child.expect(PROMPT)
    return child


def test_add_and_read_only_files_stay_in_every_prompt_until_dropped(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": BUGGY, "test_util.py": TESTS})
    script = write_script(repo, [
        {"tool": "write_file", "arguments": {"file_path": "test_util.py", "content": "# gone\n"}},
        "add subtracts.",
        "Still subtracts.",
        "Bye.",
    ])
    child = chat(repo, script, "--approval-mode", "yolo")
    child.sendline("/add util.py")
    child.expect("added util.py")
    child.expect(PROMPT)
    child.sendline("/read-only test_util.py")
    child.expect(r"read-only test_util.py: sent with every prompt")
    child.expect(PROMPT)
    child.sendline("what does add do?")
    child.expect("@ included 2 file")
    child.expect("read-only in this chat")  # even in yolo mode
    child.expect("add subtracts")
    child.expect(PROMPT)
    child.sendline("and now?")
    child.expect("@ included 2 file")
    child.expect(PROMPT)
    child.sendline("/drop")
    child.expect("dropped util.py, test_util.py")
    child.expect(PROMPT)
    child.sendline("bye")
    child.expect("Bye")
    child.expect(PROMPT)
    quit_chat(child)
    users = [m.content for m in last_session_messages(repo) if m.role == "user"]
    for prompt in users[:2]:
        assert "Content from @util.py:\n" in prompt and "Content from @test_util.py (read-only):\n" in prompt
    assert users[2] == "bye"
    assert (repo / "test_util.py").read_text() == TESTS


@pytest.mark.slow
def test_slash_test_hands_the_failing_tests_to_the_fixer(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": BUGGY, "test_util.py": TESTS})
    fixed = BUGGY.replace("a - b", "a + b")
    script = write_script(repo, [f"util.py\n```python\n{fixed}```\n", "Fixed.", "Fixed.", "Fixed."])
    child = chat(repo, script, "--approval-mode", "yolo", ACODE_AGENT__FIX__TEST_COMMAND=PYTEST)
    child.sendline("/test")
    child.expect("1 failed")
    child.expect("test failed.*asking the agent")
    child.expect(PROMPT, timeout=120)
    assert (repo / "util.py").read_text() == fixed
    child.sendline("/test")
    child.expect("test passed")
    child.expect(PROMPT)
    quit_chat(child)
    request = next(m.content for m in last_session_messages(repo)
                   if m.role == "user" and m.content.startswith("The tests fail"))
    assert f"`{PYTEST}`" in request and "assert" in request  # the failure went to the model


def test_slash_lint_hands_problems_to_the_agent_and_init_writes_acode_md(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": "import os\n", "test_util.py": TESTS,
                                             "pyproject.toml": "[tool.ruff]\n", "src/pkg/core.py": "X = 1\n"})
    script = write_script(repo, [
        {"tool": "write_file", "arguments": {"file_path": "util.py", "content": "\n"}},
        "Removed the unused import.",
    ])
    (tmp_path / "lint.py").write_text(  # a linter of its own, outside the project
        "import sys\nbad = 'import os' in open('util.py').read()\n"
        "print('F401 unused import' if bad else 'clean')\nsys.exit(int(bad))\n"
    )
    lint = f"{sys.executable} {tmp_path / 'lint.py'}"
    child = chat(repo, script, "--approval-mode", "yolo")
    child.sendline(f"/lint {lint}")
    child.expect("F401 unused import")
    # the line wraps when the temp path is long, and where it wraps depends on the path's length
    child.expect(r"lint failed[\s\S]*asking\s+the\s+agent")
    child.expect("Removed the unused import")
    child.expect(PROMPT)
    child.sendline(f"/lint {lint}")
    child.expect("lint passed")
    child.expect(PROMPT)
    child.sendline("/init")
    child.expect("wrote .*ACODE.md")
    child.expect(PROMPT)
    child.sendline("/init")
    child.expect("ACODE.md exists already")
    child.expect(PROMPT)
    quit_chat(child)
    written = (repo / "ACODE.md").read_text()
    assert "- tests: `python -m pytest -q`" in written and "- lint: `python -m ruff check .`" in written
    assert "- `src/` (1 files)" in written and "`util.py`" in written
