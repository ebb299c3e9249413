"""The approval question as Gemini CLI and aider ask it (issue 28, item 9): the coloured diff of the edit
before the question, one key press as the answer, and the diff not printed a second time afterwards.
In a real terminal (pexpect) with the scripted model."""

from __future__ import annotations

import re

from tests.helpers.agent_cli import PROMPT, spawn_chat, write_script
from tests.helpers.chat import quit_chat
from tests.helpers.repos import make_git_repo

UTIL = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def test_an_edit_shows_its_coloured_diff_first_and_takes_a_single_key(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": UTIL})
    script = write_script(repo, [
        {"tool": "replace", "arguments": {"file_path": "util.py", "old_string": "return a + b",
                                          "new_string": "return b + a"}},
        {"tool": "write_file", "arguments": {"file_path": "util.py", "content": "X = 1\n"}},
        "Swapped the operands; the rewrite was declined.",
    ])
    child = spawn_chat(repo, script)
    child.sendline("swap the operands in add")
    child.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways")
    question = child.before
    plain = ANSI.sub("", question)
    assert "-    return a + b" in plain and "+    return b + a" in plain  # the diff, before the answer
    assert "return a - b" not in plain  # only the hunk around the change, not the whole file
    removed = next(line for line in question.splitlines() if "return a + b" in line)
    assert "\x1b[" in removed  # coloured
    child.send("y")  # one key, no Enter
    child.expect("Replaced 1 occurrence", timeout=10)
    child.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways")
    after_first = ANSI.sub("", child.before)
    assert "return b + a" not in after_first.split("Replaced 1 occurrence")[-1].split("write_file")[0]
    assert "-    return b + a" in after_first and "+X = 1" in after_first  # the rewrite's own diff
    child.send("n")
    child.expect("the rewrite was declined")
    child.expect(PROMPT)
    quit_chat(child)
    assert (repo / "util.py").read_text() == UTIL.replace("return a + b", "return b + a")
