"""Issue 52: words for people and words for the model are different strings. Driven as a person drives acode
(a real terminal through pexpect, or the CLI as a script runs it) with the scripted model: what a person
reads never carries wording meant for the model (acode.audience.MODEL_DIRECTED_PHRASES), the model still
gets it, and an outcome that leaves something to do names the command."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys

import pexpect
import pytest
from tests.helpers.agent_cli import PROMPT, cli_env, run_cli, write_script
from tests.helpers.chat import last_session_messages, quit_chat
from tests.helpers.repos import make_git_repo

from acode.agent.loop.middleware import AgentState
from acode.agent.session.recorder import SessionRecorder
from acode.audience import ASK_INSTEAD, DO_NOT_RETRY, MODEL_DIRECTED_PHRASES, REMINDER_PHRASES, SHELL_NOTE
from acode.llm.types import Message
from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore

BUGGY = "def add(a, b):\n    return a - b\n"
TESTS = "from util import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
STYLE = r"(?:\x1b\[[0-9;]*m)*"  # rich's bold around "you:"


def chat(repo, script, *args, **env) -> tuple[pexpect.spawn, io.StringIO]:
    """The chat in a terminal, and everything it printed (read with ``seen``)."""
    screen = io.StringIO()
    child = pexpect.spawn(sys.executable, ["-m", "acode", "--backend", "scripted", *args], cwd=str(repo),
                          env={**cli_env(script), **env}, encoding="utf-8", timeout=90, dimensions=(40, 200))
    child.logfile_read = screen
    return child, screen


def sessions_list(repo, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acode", "sessions", "list", *args], cwd=repo, text=True,
                          capture_output=True, check=True, timeout=60, env={**os.environ, "COLUMNS": "200"})


def seen(screen: io.StringIO) -> str:
    return " ".join(ANSI.sub("", screen.getvalue()).split())


def assert_for_people(text: str) -> None:
    flat = " ".join(text.split())
    shown = [phrase for phrase in MODEL_DIRECTED_PHRASES if phrase in flat]
    assert not shown, f"model-directed wording shown to a person: {shown}\n{flat[-2000:]}"


def test_declining_slash_test_shows_no_advice_meant_for_the_model(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": BUGGY, "test_util.py": TESTS})
    child, screen = chat(repo, write_script(repo, ["never asked"]), ACODE_AGENT__FIX__TEST_COMMAND=PYTEST)
    child.expect(PROMPT)
    child.sendline("/test")
    child.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways")
    child.sendline("n")
    child.expect(f"not run \\(denied\\):{STYLE} denied by the user")
    child.expect(PROMPT)
    quit_chat(child)
    assert_for_people(seen(screen))


def test_a_denied_edit_in_one_shot_mode_says_how_to_allow_it_and_the_model_alone_is_told_not_to_retry(
    tmp_path,
):
    repo = make_git_repo(tmp_path / "repo")
    script = write_script(repo, [{"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}},
                                 "I could not write a.txt."])
    done = run_cli(repo, script, "-p", "write a.txt")
    assert done.returncode == 1
    assert "rerun with --approval-mode auto_edit (edits) or -y" in " ".join(done.stderr.split())
    assert f"acode -r {json.loads(sessions_list(repo, '--json').stdout)[0]['id']}" \
        in done.stderr  # how to go on
    assert_for_people(done.stderr + done.stdout)
    tool = next(m for m in last_session_messages(repo) if m.role == "tool")
    assert DO_NOT_RETRY in tool.content  # the model still reads it


def test_resume_and_titles_show_what_the_person_typed(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"util.py": BUGGY, "test_util.py": TESTS})
    script = write_script(repo, ["never asked"])
    child, screen = chat(repo, script, "-y")
    child.expect(PROMPT)
    child.sendline("!git log --oneline")
    child.expect("initial commit")
    child.expect(PROMPT)
    quit_chat(child)
    first = last_session_messages(repo)[1]
    assert first.content.startswith(SHELL_NOTE)  # what the model reads

    child, screen = chat(repo, script, "-r")
    child.expect(f"you:{STYLE} !git log --oneline")
    child.expect(PROMPT)
    quit_chat(child)
    assert_for_people(seen(screen))

    child, _ = chat(repo, script, "-y", ACODE_AGENT__FIX__TEST_COMMAND=f"{sys.executable} -c pass")
    child.expect(PROMPT)
    child.sendline("/test")
    child.expect("test passed")
    child.expect(PROMPT)
    quit_chat(child)
    listed = sessions_list(repo)
    titles = [s["title"] for s in json.loads(sessions_list(repo, "--json").stdout)]
    assert titles == ["/test", "!git log --oneline"]
    assert_for_people(listed.stdout)


def test_prompt_interactive_shows_the_prompt_as_a_turn(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    child, screen = chat(repo, write_script(repo, ["Hello to you."]), "-i", "say hello please")
    child.expect(r"acode> say hello please")
    child.expect("Hello to you")
    child.expect(PROMPT)
    quit_chat(child)
    text = seen(screen)
    assert text.index("say hello please") < text.index("Hello to you")


def test_slash_lint_falls_back_to_ruff_like_the_review(tmp_path):
    clean = "def one():\n    return 1\n"
    repo = make_git_repo(tmp_path / "repo", {"util.py": f"import os\n\n\n{clean}"})
    script = write_script(repo, [
        {"tool": "write_file", "arguments": {"file_path": "util.py", "content": clean}},
        "Removed the unused import.",
    ])
    child, _ = chat(repo, script, "-y", PATH="/usr/bin:/bin")  # no ruff on PATH: the one beside acode
    child.expect(PROMPT)
    child.sendline("/lint")
    child.expect("F401")
    child.expect(f"lint failed{STYLE} \\(.*ruff check \\.\\): asking the agent")
    child.expect("Removed the unused import")
    child.expect(PROMPT)
    child.sendline("/lint")
    child.expect("lint passed")
    child.expect(PROMPT)
    quit_chat(child)
    assert (repo / "util.py").read_text() == clean


def stored_session_with_every_reminder(repo) -> tuple[str, str]:
    """Two sessions as acode writes them: a new one (acode's notes marked with ``Message.shown``) and one
    recorded before that field existed, whose notes and reminders only their wording gives away."""
    store = SessionStore(ProjectPaths(repo).db_file)
    reminders = [f"{phrase} (scripted)" for phrase in REMINDER_PHRASES]
    call = {"id": "c1", "name": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}}
    denied = json.dumps({"error": f"denied by the user. {ASK_INSTEAD}"})
    try:
        ids = []
        for marked in (True, False):
            session = store.create(repo)
            history = [
                Message.system("system"),
                Message.user(f"{SHELL_NOTE}\n$ git log\ninit", shown="!git log" if marked else None),
                Message.assistant("Noted the command and its output."),
                Message.user("write a.txt"),
                Message.model_validate({"role": "assistant", "tool_calls": [call]}),
                Message.model_validate({"role": "tool", "tool_call_id": "c1", "name": "write_file",
                                        "content": denied}),
                *[Message.internal(r) if marked else Message.user(r) for r in reminders],
                Message.assistant("I did not write a.txt."),
            ]
            if marked:  # as acode writes it now
                SessionRecorder(store, session).on_history(AgentState(session, repo, history, "default"))
            else:  # as acode wrote it before: the messages, and the first user message as the title
                store.append_messages(session, 0, 0, history)
                store.update(session, title=" ".join(history[1].content.split())[:80])
            ids.append(session)
        return ids[0], ids[1]
    finally:
        store.close()


@pytest.mark.slow
def test_no_printer_shows_wording_meant_for_the_model(tmp_path):
    """Chat, one-shot text and its stderr, stream-json's fields for people, sessions list, resume: walked
    with sessions holding every internal note and reminder, and with live denials."""
    repo = make_git_repo(tmp_path / "repo")
    marked, old = stored_session_with_every_reminder(repo)
    write = {"tool": "write_file", "arguments": {"file_path": "a.txt", "content": "x"}}
    script = write_script(repo, [write, "Not written."])  # each process reads it from the start
    printed = []

    listed = sessions_list(repo)
    printed.append(listed.stdout)
    for session in (marked, old):
        child, screen = chat(repo, script, "-r", session)
        child.expect(f"you:{STYLE} write a\\.txt")  # not a reminder, nor the shell note
        child.expect(f"acode:{STYLE} I did not write a.txt")
        child.expect(PROMPT)
        child.sendline("write a.txt again")
        child.expect(r"allow\? \[y\]es / \[n\]o / \[a\]lways")
        child.sendline("n")
        child.expect("Not written")
        child.expect(PROMPT)
        quit_chat(child)
        printed.append(seen(screen))
    one_shot = run_cli(repo, script, "-r", marked, "-p", "and now?")
    printed += [one_shot.stdout, one_shot.stderr]
    streamed = run_cli(repo, script, "-r", old, "-p", "once more", "--output-format", "stream-json")
    for line in streamed.stdout.splitlines():
        event = json.loads(line)
        printed += [str(event.get(field) or "") for field in ("error", "message")]
        if event.get("role") == "user":
            printed.append(event.get("content", ""))
    printed.append(streamed.stderr)

    assert "write a.txt" in listed.stdout and "!git log" in listed.stdout  # the person's words as titles
    for text in printed:
        assert_for_people(text)
    told = [m.content for m in last_session_messages(repo) if m.role == "tool"]
    assert any(ASK_INSTEAD in t for t in told) and any(DO_NOT_RETRY in t for t in told)  # the model's


def test_internal_check_failures_stay_in_the_log(tmp_path):
    """The next-speaker check and /compress's summary ask the (scripted) model for JSON it cannot give:
    the chat goes on and says nothing of it; ``--debug`` shows it."""
    repo = make_git_repo(tmp_path / "repo")
    # the first answer sounds unfinished: the check asks the model; the second is the one shown
    script = write_script(repo, ["I will look at the files and then continue with the next step",
                                 "The files are fine."])
    for flags in ((), ("--debug",)):
        child, screen = chat(repo, script, *flags, ACODE_NEXT_SPEAKER__ENABLED="true")
        child.expect(PROMPT)
        child.sendline("hello")
        child.expect("The files are fine")
        child.expect(PROMPT)
        child.sendline("/compress")
        child.expect(r"compression \w+")
        child.expect(PROMPT)
        quit_chat(child)
        logged = "next-speaker check by the model failed" in seen(screen)
        assert logged == bool(flags)
        assert ("ACODE-MODEL" in seen(screen)) == bool(flags)


def test_tools_keeps_an_abbreviation_inside_the_first_sentence():
    from acode.cli.slash_info import first_sentence

    assert first_sentence("Find files by a glob (e.g. '**/*.py'); newest first. More.") == (
        "Find files by a glob (e.g. '**/*.py'); newest first.")
    assert first_sentence("Run it, i.e. the tests. Then stop.") == "Run it, i.e. the tests."
