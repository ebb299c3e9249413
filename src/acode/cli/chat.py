"""``acode`` (interactive chat) and ``acode -p "..."`` (one-shot). Flags in, one AgentSession, rendering
out; the agent logic lives in acode.agent."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markdown import Markdown

from acode.cli.common import console, err_console, model_overrides, print_json, project_root, settings_for
from acode.errors import AcodeError, UsageError


def start_agent(
    prompt: str | None,
    approval_mode: str | None,
    model: str | None,
    backend: str | None,
    resume: str | None,
    json_out: bool,
    approve_plan: bool,
    no_loop_detection: bool,
    extensions: Sequence[str] | None,
    *,
    verbose: bool = False,
    output_format: str = "text",
    auto_commit: bool = False,
) -> None:
    from acode.agent.session.agent_session import SessionOptions

    root = project_root()
    settings = settings_for(root, agent__approval_mode=approval_mode, git__auto_commit=auto_commit or None,
                            **model_overrides(model, backend))
    chat = prompt is None and sys.stdin.isatty()
    if prompt is None and not chat:
        prompt = sys.stdin.read().strip()
        if not prompt:
            raise UsageError(
                "ACODE-AGENT-002", "no prompt given", hint='use acode -p "<task>", or run acode in a terminal'
            )
    from acode.extensions.loader import load_enabled_extensions

    options = SessionOptions(
        interactive=chat,
        resume=resume,
        no_loop_detection=no_loop_detection,
        approve_plan=approve_plan,
        extensions=load_enabled_extensions(root, extensions),
    )
    if not chat:
        from acode.cli.chat_input import expand_prompt

        prompt = expand_prompt(prompt or "", root, err_console)  # @ references
    if chat:
        run_chat(settings, root, options, verbose=verbose)
    elif output_format == "stream-json":
        from acode.cli.stream_json import run_stream

        sys.exit(run_stream(settings, root, options, prompt or "", verbose=verbose))
    else:
        sys.exit(
            run_once(
                settings,
                root,
                options,
                prompt or "",
                json_out=json_out or output_format == "json",
                verbose=verbose,
            )
        )


def run_once(settings, root: Path, options, prompt: str, *, json_out: bool, verbose: bool = False) -> int:
    """Non-interactive: progress on stderr, the answer (or the JSON trajectory) on stdout."""
    from acode.agent.session.builder import build_session
    from acode.cli.agent_view import ConsoleView

    options.observers = [ConsoleView(err_console, verbose=verbose)]
    session = build_session(settings, root, options)
    from acode.cli.turn_hooks import attach_turn_observers

    attach_turn_observers(session, settings, err_console)  # git: what each turn changed, auto-commit
    try:
        result = session.send(prompt)
    finally:
        session.close()
    if json_out:
        print_json(result)
    elif result.answer:
        sys.stdout.write(result.answer.rstrip() + "\n")
    if not result.ok:
        err_console.print(
            f"session {result.session_id}: resume with acode -r {result.session_id}", highlight=False
        )
    return result.exit_code


def run_chat(settings, root: Path, options, *, verbose: bool = False, out: Console | None = None) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    from acode.agent.session.builder import build_session
    from acode.cli import slash
    from acode.cli.agent_view import ConsoleApprover, ConsoleView, console_ask_user
    from acode.cli.slash_session import ChatSessionUI
    from acode.paths import ProjectPaths

    out = out or console
    previewed: set[str] = set()  # edits whose diff the approval question showed
    options.approver = ConsoleApprover(out, previewed)
    options.ui = options.ui or ChatSessionUI(out)
    set_aside: list[str] = []  # slash commands typed at an ask_user question: run after the turn
    options.ask_user = console_ask_user(out, set_aside.append)
    options.observers = [ConsoleView(out, verbose=verbose, previewed=previewed)]
    session = build_session(settings, root, options)
    from acode.cli.turn_hooks import attach_turn_observers

    attach_turn_observers(session, settings, out)  # git: what each turn changed, auto-commit
    slash.load_modules()

    def submit(text: str):
        result = chat.session.send(text)
        if result.answer:
            out.print(Markdown(result.answer))
        while set_aside:
            slash.dispatch(chat, set_aside.pop(0))
        return result

    chat = slash.ChatContext(session, out, submit)
    from acode.cli.chat_input import ChatInput

    chat_input = ChatInput(chat, root)  # ! shell mode, @ references, completion
    history_file = ProjectPaths(root).acode_dir / "chat_history"
    history_file.parent.mkdir(parents=True, exist_ok=True)
    prompt_session: PromptSession = PromptSession(
        history=FileHistory(str(history_file)), completer=chat_input.completer(), complete_while_typing=False
    )
    out.print(
        f"[bold]acode[/] - {getattr(session.loop.model, 'name', '')} - approval mode "
        f"[bold]{session.state.approval_mode}[/] - session {session.id}\n"
        "[dim]/help for commands, Ctrl-C cancels a step, Ctrl-D quits[/]"
    )
    if options.resume:
        slash.show_resumed(out, chat.session)
    try:
        while not chat.should_quit:
            try:
                text = prompt_session.prompt(chat_input.prompt_text())
            except KeyboardInterrupt:
                continue
            except EOFError:
                break
            text = text.strip()
            if not text:
                continue
            try:
                chat_input.handle(text)
            except KeyboardInterrupt:
                out.print("[yellow]cancelled[/]")
            except AcodeError as exc:
                out.print(f"error {exc}", markup=False, highlight=False)
    finally:
        chat.session.close()
        out.print(f"[dim]session {chat.session.id} saved: acode -r {chat.session.id}[/]")
