"""The chat's prompt does not wait for the model: it loads when the first message needs it, and says so
(the real 0.5B, in a real terminal)."""

from __future__ import annotations

import io
import os
import sys

import pexpect
import pytest
from tests.helpers.agent_cli import PROMPT
from tests.helpers.one_shot import REAL_MODEL
from tests.helpers.repos import make_git_repo

pytestmark = pytest.mark.real_model


def test_slash_commands_run_before_the_model_loads_and_the_first_message_loads_it(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"README.md": "# demo\n", ".acode/.keep": ""})
    env = {**os.environ, "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm", "COLUMNS": "120",
           "ACODE_NEXT_SPEAKER__ENABLED": "false"}
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--model", REAL_MODEL], cwd=str(repo), env=env,
                          encoding="utf-8", timeout=240, dimensions=(40, 120))
    screen = io.StringIO()
    child.logfile_read = screen
    child.expect(PROMPT)
    child.sendline("/help")
    child.expect("/quit")
    assert "preparing the model" not in screen.getvalue()
    child.sendline("Reply with one word: hello")
    child.expect(f"preparing the model {REAL_MODEL}")
    child.expect(PROMPT)  # the turn finished with the loaded model
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert screen.getvalue().count("preparing the model") == 1  # said once, when the first message needed it
