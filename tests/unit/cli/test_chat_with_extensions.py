"""Issue 14 item 11: with any extension installed, custom commands, /commands and /agent:start crashed
the chat (the session kept the extensions as objects; the slash commands read them as names)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
import yaml

PROMPT = "acode>"


def _chat(repo: Path, steps: list) -> pexpect.spawn:
    script = repo.parent / "chat-script.yml"
    script.write_text(yaml.safe_dump(steps))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_NEXT_SPEAKER__ENABLED="false",
               PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", COLUMNS="120")
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--backend", "scripted"], cwd=str(repo), env=env,
                          encoding="utf-8", timeout=30, dimensions=(40, 120))
    child.expect("session")
    child.expect(PROMPT)
    return child


def test_custom_commands_and_agent_start_work_with_an_extension_installed(git_repo):
    ext = git_repo / ".acode" / "extensions" / "house"
    (ext / "commands").mkdir(parents=True)
    (ext / "acode-extension.json").write_text(json.dumps({"name": "house", "contextFileName": "HOUSE.md"}))
    (ext / "HOUSE.md").write_text("House rule: tabs are forbidden.")
    (ext / "commands" / "rules.toml").write_text(
        'description = "the house rules"\nprompt = "List the rules."\n'
    )
    commands = git_repo / ".acode" / "commands"
    commands.mkdir(parents=True)
    (commands / "greet.toml").write_text('description = "say hello"\nprompt = "Say hello to {{args}}."\n')

    child = _chat(git_repo, ["Hello, Ada!", "Rule one: no tabs."])
    child.sendline("/commands")
    child.expect("/rules")  # extension commands are listed first, then the project's
    child.expect("/greet")
    child.expect(PROMPT)
    child.sendline("/greet Ada")
    child.expect("Hello, Ada!")
    child.expect(PROMPT)
    child.sendline("/rules")  # a command that comes from the extension itself
    child.expect("Rule one: no tabs.")
    child.expect(PROMPT)
    child.sendline("/agent:start codebase_investigator find the entry point")
    child.expect("created for agent 'codebase_investigator'")
    child.expect(PROMPT)
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert "AttributeError" not in (child.before or "")
    assert child.exitstatus == 0
    tasks = list((git_repo / ".acode" / "agents" / "tasks").glob("*.json"))
    assert len(tasks) == 1
