"""What a line typed in the chat turns into, before the agent sees it:

- ``/name args``: a slash command (acode.cli.slash);
- ``!command``: one shell command run by *you*, through the shell tool with its rules, approval mode and
  hooks (``deny_shell`` still denies; default mode still asks); its output joins the conversation as
  context for the next prompt. A bare ``!`` toggles shell mode, where every line is a command;
- anything else: a prompt, with ``@path`` references expanded (acode.agent.session.at_refs).

Completion: ``/`` completes command names, ``@`` completes the paths tools may see.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prompt_toolkit.completion import Completer, Completion

from acode.agent.session.at_refs import expand_at_refs, has_refs
from acode.cli.working_set import WorkingSet
from acode.tools.base import ToolContext

SHELL_TOOL = "run_shell_command"
LISTING_TTL_SECONDS = 10.0


def expand_prompt(
    text: str, workspace: Path, console: Any, *, also: Sequence[str] = (), read_only: Sequence[str] = ()
) -> str:
    """``@`` references (and the working set: ``also``, ``read_only``) expanded, with a note per included /
    left-out file on ``console``."""
    if not (has_refs(text) or also or read_only):
        return text.replace("\\@", "@")
    expansion = expand_at_refs(text, ToolContext(workspace=workspace), also=also, read_only=read_only)
    for note in expansion.notes():
        console.print(f"[dim]{note}[/]", highlight=False)
    return expansion.prompt


class ChatInput:
    def __init__(self, chat: Any, workspace: Path):
        self.chat = chat
        self.workspace = workspace
        self.shell_mode = False

    def prompt_text(self) -> str:
        return "shell> " if self.shell_mode else "acode> "

    def handle(self, text: str) -> None:
        from acode.cli import slash

        if text == "!":
            self.shell_mode = not self.shell_mode
            state = "on: every line runs as a shell command; ! leaves" if self.shell_mode else "off"
            self.chat.console.print(f"shell mode {state}")
            return
        if self.shell_mode:
            self.run_shell(text)
        elif text.startswith("!"):
            self.run_shell(text[1:].strip())
        elif text.startswith("/"):
            slash.dispatch(self.chat, text)
        else:
            files = WorkingSet.of(self.chat)
            files.guard(self.chat.session)
            self.chat.submit(expand_prompt(text, self.workspace, self.chat.console,
                                           also=files.editable, read_only=files.read_only))

    def run_shell(self, command: str) -> None:
        from acode.cli.shell_mode import run_user_shell

        if command:
            run_user_shell(self.chat, command)

    def completer(self) -> Completer:
        return ChatCompleter(self.workspace)


class ChatCompleter(Completer):
    """``/`` + command names; ``@`` + paths (files tools see, and their folders)."""

    def __init__(self, workspace: Path):
        self.workspace = workspace
        self._paths: list[str] = []
        self._listed_at = 0.0

    def paths(self) -> list[str]:
        if time.monotonic() - self._listed_at > LISTING_TTL_SECONDS:
            from acode.tools.ignore import candidate_files

            try:
                files = [f for f in candidate_files(self.workspace) if not f.startswith(".acode/")]
            except OSError:
                files = []
            folders = {f.rsplit("/", 1)[0] + "/" for f in files if "/" in f}
            for folder in list(folders):  # parents of nested folders too
                parts = folder.rstrip("/").split("/")
                folders.update("/".join(parts[:n]) + "/" for n in range(1, len(parts)))
            self._paths = sorted(folders) + files
            self._listed_at = time.monotonic()
        return self._paths

    def get_completions(self, document, complete_event):
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@") and not word.startswith("@@"):
            typed = word[1:]
            for path in self.paths():
                if path.startswith(typed) and path != typed:
                    yield Completion("@" + path.replace(" ", "\\ "), start_position=-len(word), display=path)
        elif word.startswith("/") and document.text_before_cursor == word:
            from acode.cli import slash

            for command in slash.commands():
                if command.name.startswith(word[1:]):
                    yield Completion(
                        "/" + command.name, start_position=-len(word), display_meta=command.help[:50]
                    )
