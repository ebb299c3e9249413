"""Issue 30 item 12: the trust question asked in a terminal stores only a real answer. Unrelated text (a
question back, a typo) used to be stored as a permanent "distrust"; now the question is asked again."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import yaml

QUESTION = "Trust this folder"


def test_an_unrelated_answer_to_the_trust_question_is_asked_again(git_repo):
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "config.yml").write_text(yaml.safe_dump({"hooks": {"SessionStart": [
        {"hooks": [{"command": f"touch {git_repo / 'HOOK_RAN'}"}]}]}}))
    script = git_repo.parent / "question-script.yml"
    script.write_text(yaml.safe_dump(["never asked"]))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_NEXT_SPEAKER__ENABLED="false",
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", COLUMNS="200")
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--backend", "scripted"], cwd=str(git_repo),
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 200))
    child.expect(QUESTION)
    child.sendline("what does a hook do?")
    again = child.expect([QUESTION, "acode>"])
    if again == 0:
        child.sendline("y")
        child.expect("acode>")
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    stored = Path(os.environ["ACODE_CONFIG_HOME"]) / "trusted_folders.json"
    rules = json.loads(stored.read_text())["folders"]
    assert again == 0 and rules == {str(git_repo.resolve()): "trust"}
    assert (git_repo / "HOOK_RAN").exists()  # trusted by the real answer: its hook ran
