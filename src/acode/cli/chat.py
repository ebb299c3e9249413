"""``acode`` (interactive chat) and ``acode -p "..."`` (one-shot). Flags in, one AgentSession, rendering
out; the agent logic lives in acode.agent."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown

from acode.cli.common import (
    console,
    err_console,
    model_overrides,
    print_json,
    project_root,
    say_sandbox,
    settings_for,
)
from acode.errors import AcodeError, UsageError


def failures_reported(start: Callable[..., None]) -> Callable[..., None]:
    """With ``--output-format json|stream-json`` a failure before or during the run is written to stdout
    in that format too (acode.cli.stream_json.report_failure); the message still goes to stderr."""

    @functools.wraps(start)
    def run(*args: Any, output_format: str = "text", **kwargs: Any) -> None:
        try:
            start(*args, output_format=output_format, **kwargs)
        except AcodeError as exc:
            from acode.cli.stream_json import report_failure

            report_failure(output_format, exc)
            raise

    return run


def one_shot_prompt(prompt: str | None) -> str | None:
    """The prompt of a one-shot run (``-p``, else what was piped in), None for the chat. An empty one is a
    usage error before anything is loaded: a model handed nothing invents a task of its own."""
    if prompt is None:
        if sys.stdin.isatty():
            return None
        prompt = sys.stdin.read()
    if not prompt.strip():
        raise UsageError(
            "ACODE-AGENT-002",
            "the prompt is empty",
            hint='say what to do: acode -p "<task>", or run acode in a terminal for the chat',
        )
    return prompt.strip()


@failures_reported
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
    prompt_interactive: str | None = None,
    yolo: bool = False,
    sandbox: str | None = None,
) -> None:
    from acode.agent.session.agent_session import SessionOptions

    approval_mode = _with_yolo(approval_mode, yolo)
    _check_prompt_interactive(prompt_interactive, prompt)
    root = project_root()
    settings = settings_for(root, agent__approval_mode=approval_mode, git__auto_commit=auto_commit or None,
                            sandbox__mode=sandbox, **model_overrides(model, backend))
    say_sandbox(settings)
    prompt = one_shot_prompt(prompt)  # before any model is loaded
    chat = prompt is None
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
        run_chat(settings, root, options, verbose=verbose, first_prompt=prompt_interactive)
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


def _with_yolo(approval_mode: str | None, yolo: bool) -> str | None:
    """``-y``/``--yolo`` is Gemini CLI's shortcut for ``--approval-mode yolo``; both at once must agree."""
    if not yolo:
        return approval_mode
    if approval_mode not in (None, "yolo"):
        raise UsageError(
            "ACODE-CLI-001",
            f"--yolo and --approval-mode {approval_mode} disagree",
            hint="give only one of them (-y is --approval-mode yolo)",
        )
    return "yolo"


def _check_prompt_interactive(text: str | None, prompt: str | None) -> None:
    """``-i``/``--prompt-interactive`` runs its prompt in the chat, so it needs the terminal the chat
    reads from, and it is not ``-p``."""
    if text is None:
        return
    if prompt is not None:
        raise UsageError(
            "ACODE-CLI-002", "-p and -i both give a prompt",
            hint="-p runs once and exits; -i stays in the chat",
        )
    if not sys.stdin.isatty():
        raise UsageError(
            "ACODE-CLI-003",
            "-i/--prompt-interactive needs a terminal to stay in the chat",
            hint='without one use acode -p "<task>"',
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
        print_json({**result.model_dump(mode="json"), "exit_code": result.exit_code})
    elif result.answer:
        from acode.shown import for_terminal

        sys.stdout.write(for_terminal(result.answer.rstrip()) + "\n")  # never raw control sequences
    if not result.ok:
        err_console.print(
            f"session {result.session_id}: resume with acode -r {result.session_id}", highlight=False
        )
    return result.exit_code


def run_chat(
    settings,
    root: Path,
    options,
    *,
    verbose: bool = False,
    out: Console | None = None,
    first_prompt: str | None = None,
) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    from acode.agent.session.builder import build_session
    from acode.cli import slash
    from acode.cli.agent_view import ConsoleApprover, ConsoleView, console_ask_user
    from acode.cli.slash_session import ChatSessionUI
    from acode.llm.lazy import build_model_when_needed
    from acode.llm.routing import build_agent_model
    from acode.paths import ProjectPaths

    out = out or console
    previewed: set[str] = set()  # edits whose diff the approval question showed
    options.approver = ConsoleApprover(out, previewed)
    options.ui = options.ui or ChatSessionUI(out)
    set_aside: list[str] = []  # slash commands typed at an ask_user question: run after the turn
    options.ask_user = console_ask_user(out, set_aside.append)
    options.observers = [ConsoleView(out, verbose=verbose, previewed=previewed)]

    # the prompt comes at once; the model loads when the first message needs it (not for /help or !ls)
    def announce(text: str) -> None:
        out.print(f"{text} …", markup=False, highlight=False)

    model = build_agent_model(settings, builder=lambda wanted: build_model_when_needed(wanted, say=announce))
    session = build_session(settings, root, options, model=model)
    from acode.cli.turn_hooks import attach_turn_observers

    attach_turn_observers(session, settings, out)  # git: what each turn changed, auto-commit
    slash.load_modules()

    def submit(text: str, shown: str | None = None):
        result = chat.session.send(text, shown=shown)
        if result.answer:
            from acode.shown import for_terminal

            out.print(Markdown(for_terminal(result.answer)))
        while set_aside:
            slash.dispatch(chat, set_aside.pop(0))
        return result

    from rich.markup import escape

    from acode.command_sandbox import sandbox_summary

    chat = slash.ChatContext(session, out, submit)
    from acode.cli.chat_input import ChatInput

    chat_input = ChatInput(chat, root)  # ! shell mode, @ references, completion
    history_file = ProjectPaths(root).acode_dir / "chat_history"
    history_file.parent.mkdir(parents=True, exist_ok=True)
    prompt_session: PromptSession = PromptSession(
        history=FileHistory(str(history_file)), completer=chat_input.completer(), complete_while_typing=False
    )
    out.print(
        f"[bold]acode[/] - {getattr(session.model, 'name', '')} - approval mode "
        f"[bold]{session.state.approval_mode}[/] - session {session.id}\n"
        f"[dim]sandbox: {escape(sandbox_summary(session.sandbox))}[/]\n"
        "[dim]/help for commands, Ctrl-C cancels a step, Ctrl-D quits[/]"
    )
    if options.resume:
        slash.show_resumed(out, chat.session)
    pending = (first_prompt or "").strip()  # -i: the given prompt is the first thing typed
    try:
        while not chat.should_quit:
            text, pending = pending, ""
            if text:  # shown as if typed at the prompt, so the turn reads like every other one
                out.print(f"{chat_input.prompt_text()}{text}", markup=False, highlight=False)
            try:
                text = text or prompt_session.prompt(chat_input.prompt_text())
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
