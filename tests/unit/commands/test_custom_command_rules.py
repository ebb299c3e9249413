"""Issue 30 items 5 and 14, in the chat as a person uses it (pexpect): a custom command's ``!{...}`` is
judged by the agent's shell rules (``deny_shell`` wins, as for ``!cmd`` in the chat and the model's own
calls), and its ``@{...}`` injects only what a prompt's ``@path`` may (not ``.git/config``)."""

from __future__ import annotations

import os
from pathlib import Path

import pexpect
from tests.helpers.agent_cli import PROMPT, spawn_chat, write_script

from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

QUESTION = r"for this command\?"


def user_command(name: str, prompt: str) -> None:
    folder = Path(os.environ["ACODE_CONFIG_HOME"]) / "commands"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.toml").write_text(f'description = "{name}"\nprompt = """{prompt}"""\n')


def stored_user_messages(repo: Path) -> list[str]:
    store = SessionStore(ProjectPaths(repo).db_file)
    try:
        sessions = store.list(limit=1)
        if not sessions:
            return []
        return [m.content for m in store.load_messages(sessions[0].id) if m.role == "user"]
    finally:
        store.close()


def quit_chat(child: pexpect.spawn) -> None:
    child.sendline("/quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_deny_shell_refuses_a_custom_commands_shell_injection_without_asking(git_repo):
    (git_repo / ".acode").mkdir()
    (git_repo / ".acode" / "config.yml").write_text('agent:\n  rules:\n    deny_shell: [touch]\n')
    user_command("status", "Out: !{touch DENIED-RAN} and !{echo fine}")
    user_command("listing", "Files: !{echo listed-$((40+2))}")
    child = spawn_chat(git_repo, write_script(git_repo, ["The listing is short."]))
    child.sendline("/status")
    asked = child.expect([QUESTION, r"denied by agent\.rules\.deny_shell"])
    if asked == 0:  # the old behaviour: the denied command was offered, and a person says yes
        child.sendline("y")
        while child.expect([QUESTION, PROMPT]) == 0:
            child.sendline("n")
    else:
        child.expect(PROMPT)
    assert not (git_repo / "DENIED-RAN").exists()
    assert asked == 1
    child.sendline("/listing")  # not denied, not allowed: asked, as before
    child.expect(QUESTION)
    child.sendline("y")
    child.expect("The listing is short.")
    child.expect(PROMPT)
    quit_chat(child)
    assert stored_user_messages(git_repo) == ["Files: listed-42\n"]


def test_a_custom_command_injects_the_same_files_as_a_prompts_at_reference(git_repo):
    (git_repo / ".acode").mkdir()
    user_command("gitconf", "Config: @{.git/config}")
    user_command("readme", "Readme: @{README.md}")
    child = spawn_chat(git_repo, write_script(git_repo, ["It is a sample."]))
    child.sendline("/gitconf")
    child.expect(["ACODE-CMD-013", "Config:", pexpect.TIMEOUT], timeout=10)
    child.expect(PROMPT)
    child.sendline("/readme")
    child.expect("It is a sample.")
    child.expect(PROMPT)
    quit_chat(child)
    sent = stored_user_messages(git_repo)
    assert sent == ["Readme: # sample\n"], sent
    assert not any("[core]" in m for m in sent)
