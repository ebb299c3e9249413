"""Slash commands of the interactive chat: a small registry plus the built-in ones.

Other parts add theirs in their own modules with the decorator, and list the module in
``SLASH_MODULES`` (imported when the chat starts)::

    @register("plan", "Enter plan mode: research and write a plan before changing anything")
    def plan(chat: ChatContext, args: str) -> None: ...

Commands whose names are only known at run time (custom ``.acode/commands/*.toml``) come from a
resolver: ``register_resolver(lambda name: SlashCommand(...) or None)``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.markup import escape

if TYPE_CHECKING:
    from acode.agent.loop.result import AgentResult
    from acode.agent.session.agent_session import AgentSession

Handler = Callable[["ChatContext", str], Any]


@dataclass
class SlashCommand:
    name: str
    help: str
    handler: Handler


_COMMANDS: dict[str, SlashCommand] = {}
_RESOLVERS: list[Callable[[str], SlashCommand | None]] = []

# Modules that register more slash commands (imported lazily by the chat).
SLASH_MODULES: list[str] = ["acode.cli.slash_session", "acode.cli.slash_agents", "acode.cli.slash_info",
                            "acode.cli.slash_memory", "acode.cli.slash_git", "acode.cli.working_set",
                    "acode.cli.slash_checks"]


class ChatContext:
    """What a slash command may use: the current session (which /clear and /resume replace), the
    console, and ``submit`` to send a prompt to the agent with the chat's usual rendering (``shown=``: the
    words a person sees as theirs when the prompt is acode's wording, as after ``/test``)."""

    def __init__(self, session: AgentSession, console: Any, submit: Callable[..., AgentResult]):
        self.session = session
        self.console = console
        self.submit = submit
        self.should_quit = False


def register(name: str, help: str) -> Callable[[Handler], Handler]:
    def decorate(handler: Handler) -> Handler:
        _COMMANDS[name] = SlashCommand(name, help, handler)
        return handler

    return decorate


def register_resolver(resolver: Callable[[str], SlashCommand | None]) -> None:
    if resolver not in _RESOLVERS:
        _RESOLVERS.append(resolver)


def load_modules() -> None:
    for module in SLASH_MODULES:
        importlib.import_module(module)


def commands() -> list[SlashCommand]:
    return sorted(_COMMANDS.values(), key=lambda c: c.name)


def find(name: str) -> SlashCommand | None:
    if name in _COMMANDS:
        return _COMMANDS[name]
    for resolver in _RESOLVERS:
        found = resolver(name)
        if found is not None:
            return found
    return None


def dispatch(chat: ChatContext, line: str) -> bool:
    """Run a ``/name args`` line; False when no such command exists (the chat says so)."""
    name, _, args = line.strip()[1:].partition(" ")
    command = find(name)
    if command is None:
        chat.console.print(f"[red]unknown command[/] /{name} - /help lists the commands")
        return False
    command.handler(chat, args.strip())
    return True


# -- built-in commands ------------------------------------------------------------------------


@register("help", "List the slash commands")
def _help(chat: ChatContext, args: str) -> None:
    for command in commands():
        chat.console.print(f"  [bold]/{command.name}[/]  {command.help}")
    chat.console.print("  Ctrl-C cancels the current step; Ctrl-D or /quit leaves.")


@register("quit", "Leave the chat (the session is kept: resume it with acode -r latest)")
def _quit(chat: ChatContext, args: str) -> None:
    chat.should_quit = True


register("exit", "Same as /quit")(_quit)


@register("clear", "Start a fresh conversation (the old one stays in acode sessions list)")
def _clear(chat: ChatContext, args: str) -> None:
    chat.session = chat.session.restart()
    chat.console.clear()
    chat.console.print(f"new session {chat.session.id}")


@register("mode", "Show or set the approval mode: /mode default|auto_edit|yolo|plan")
def _mode(chat: ChatContext, args: str) -> None:
    if args:
        chat.session.set_mode(args)
    chat.console.print(f"approval mode: [bold]{chat.session.state.approval_mode}[/]")


@register("resume", "List recent sessions, or resume one: /resume latest|ID")
def _resume(chat: ChatContext, args: str) -> None:
    if not args:
        from acode.agent.session.said import title_of

        store = chat.session.store
        for info in store.list(limit=10):
            marker = "*" if info.id == chat.session.id else " "
            title = title_of(store, info)
            chat.console.print(f" {marker} {info.id}  {info.status:<12} {title}", markup=False)
        return
    chat.session = chat.session.restart(resume=args)
    show_resumed(chat.console, chat.session)


def show_resumed(console: Any, session: AgentSession) -> None:
    """Which session was resumed, with its last exchange: the user's last prompt (their own words) and
    the answer to it, so the conversation can be picked up where it stopped."""
    from acode.agent.session.said import last_said, person_words

    history = session.state.history
    messages = [m for m in history if m.role in ("user", "assistant") and m.content]
    console.print(f"resumed session {session.id} ({len(messages)} messages)", highlight=False)
    prompt = last_said(history)
    if prompt is None:
        return
    said = " ".join((person_words(history[prompt]) or "").split())
    console.print(f"  [bold]you:[/] {escape(said[:200])}", highlight=False)
    answer = next((m.content for m in reversed(history[prompt:]) if m.role == "assistant" and m.content
                   and not m.tool_calls), "")
    if answer:
        console.print(f"  [bold]acode:[/] {escape(' '.join(answer.split())[:300])}", highlight=False)
