"""The chat driven as a person drives it, in a real terminal (pexpect): ``@file``, ``!`` shell mode with its
approval question, ``/memory``, ``/stats`` and friends. The scripted model answers (its choice is set
through ACODE_MODEL__SCRIPT, as in tests/unit/cli/test_agent_cli.py)."""

from __future__ import annotations

from tests.helpers.agent_cli import PROMPT, spawn_chat, write_script
from tests.helpers.chat import last_session_messages, quit_chat
from tests.helpers.repos import make_git_repo


def test_at_file_in_the_chat_sends_the_content(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": "def add(a, b):\n    return a + b\n"})
    script = write_script(repo, ["It adds two numbers."])
    child = spawn_chat(repo, script)
    child.sendline("what does @util.py do? mail me at dev@example.com")
    child.expect("@ included 1 file")
    child.expect("It adds two numbers")
    child.expect(PROMPT)
    quit_chat(child)
    user = next(m for m in last_session_messages(repo) if m.role == "user")
    assert user.content.startswith("what does @util.py do? mail me at dev@example.com\n\n--- Content")
    assert "return a + b" in user.content


def test_bang_runs_a_shell_command_after_the_approval_question(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    (repo / ".acode").mkdir()
    (repo / ".acode" / "config.yml").write_text("agent:\n  rules:\n    deny_shell: [rm]\n")
    script = write_script(repo, ["The command printed a greeting."])
    child = spawn_chat(repo, script)
    child.sendline("!echo hi-from-$((40+2))")
    child.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways")  # default mode asks, as for the model's own calls
    child.sendline("a")  # always: echo is remembered for this session
    child.expect("hi-from-42")
    child.expect(PROMPT)
    child.sendline("!")  # shell mode on: every line is a command
    child.expect("shell mode on")
    child.expect("shell>")
    child.sendline("echo second")  # "always" covers echo now: no question
    child.expect("second")
    child.expect("shell>")
    child.sendline("!")
    child.expect("shell mode off")
    child.expect(PROMPT)
    child.sendline("!rm -rf nothing")
    child.expect("not run \\(denied\\)")  # agent.rules.deny_shell in .acode/config.yml
    child.expect(PROMPT)
    child.sendline("what did it print?")
    child.expect("printed a greeting")
    child.expect(PROMPT)
    quit_chat(child)
    contents = [m.content for m in last_session_messages(repo) if m.role == "user"]
    assert "I ran a shell command myself" in contents[0] and "hi-from-42" in contents[0]
    assert "second" in contents[1] and contents[-1] == "what did it print?"


def test_stats_tools_and_mcp_describe_the_session(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": "X = 1\n"})
    script = write_script(repo, [
        {"tool": "read_file", "arguments": {"file_path": "util.py"}},
        "util.py sets X to 1.",
    ])
    child = spawn_chat(repo, script)
    child.sendline("what is in util.py?")
    child.expect("sets X to 1")
    child.expect(PROMPT)
    child.sendline("/stats")
    child.expect(r"model calls\s+2")
    child.expect(r"tokens in\s+[\d,]+\s+\(cached 0 = 0%\)")
    child.expect(r"tool calls\s+1\s+\(0 failed")
    child.expect(r"by tool\s+read_file 1")
    child.expect(PROMPT)
    child.sendline("/tools")
    child.expect(r"run_shell_command\S* \S*\(execute, asks first\)")
    child.expect(PROMPT)
    child.sendline("/mode plan")
    child.expect(PROMPT)
    child.sendline("/tools")
    child.expect(r"run_shell_command\S* \S*\(execute, denied\)")
    child.expect(PROMPT)
    child.sendline("/mcp")
    child.expect("no MCP servers configured")
    child.expect(PROMPT)
    quit_chat(child)


def test_memory_add_then_show_and_the_model_sees_it(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"ACODE.md": "Project rule: keep functions short."})
    script = write_script(repo, ["Understood."])
    child = spawn_chat(repo, script)
    child.sendline("/memory add always run pytest -q before answering")
    child.expect("remembered in .*ACODE.md")
    child.expect(PROMPT)
    child.sendline("/memory show")
    child.expect("memory in the system prompt: 2 file")
    child.expect("always run pytest -q before answering")
    child.expect("Project rule: keep functions short")
    child.expect(PROMPT)
    child.sendline("/memory list")
    child.expect(r"global\s+\S+ACODE.md\s+\(loaded\)")
    child.expect(PROMPT)
    child.sendline("hello")
    child.expect("Understood")
    child.expect(PROMPT)
    quit_chat(child)
    system = last_session_messages(repo)[0]
    assert system.role == "system" and "- always run pytest -q before answering" in system.content
