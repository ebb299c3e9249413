"""/agent:start, /agent:run, /agent:status, /commands and custom commands (.acode/commands/**/*.toml)
in the chat. The queue runs in-process with the chat's model, so no second model is loaded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.markup import escape

from acode.cli.common import print_problem
from acode.cli.slash import ChatContext, SlashCommand, register, register_resolver
from acode.errors import AcodeError


def _root(chat: ChatContext) -> Path:
    return Path(chat.session.workspace)


def _store(chat: ChatContext):
    from acode.paths import ProjectPaths
    from acode.queue.store import TaskStore

    return TaskStore(ProjectPaths(_root(chat)).agents_dir)


def _report(chat: ChatContext, exc: AcodeError) -> None:
    print_problem(chat.console, "error", exc, style="red")


@register("agent:start", "Queue a task for a sub-agent: /agent:start <agent> <prompt>")
def agent_start(chat: ChatContext, args: str) -> None:
    from acode.agent.subagents.definitions import get_agent, load_agents

    agent, _, prompt = args.strip().partition(" ")
    if not agent or not prompt.strip():
        chat.console.print("usage: /agent:start <agent> <prompt>   (agents: `acode agents list`)")
        return
    try:
        get_agent(load_agents(_root(chat), chat.session.extensions), agent)
        task = _store(chat).create(agent, prompt.strip())
    except AcodeError as exc:
        _report(chat, exc)
        return
    chat.console.print(f"Task {task.task_id} created for agent '{agent}' and is now pending.", markup=False)


@register("agent:run", "Run the oldest pending sub-agent task here (/agent:run --all drains the queue)")
def agent_run(chat: ChatContext, args: str) -> None:
    from acode.agent.subagents.definitions import load_agents
    from acode.cli.agent_queue import NOTHING_LINE
    from acode.queue.agent_runner import make_task_runner
    from acode.queue.worker import drain
    from acode.tools.builtin import default_registry

    settings = chat.session.settings
    runner = make_task_runner(
        load_agents(_root(chat), chat.session.extensions),
        lambda: chat.session.model,
        default_registry,
        rules=settings.agent.rules,
        loop_config=chat.session.loop_config,
        sandbox=chat.session.sandbox,
    )

    def announce(state: Any) -> None:
        chat.console.print(f"Orchestrator finished task {state.task_id}. ({state.status})", markup=False)

    chat.console.print("[dim]running sub-agent tasks (Ctrl-C stops) ...[/]")
    try:
        done = drain(_store(chat), runner, run_all="--all" in args.split(), on_done=announce)
    except AcodeError as exc:
        _report(chat, exc)
        return
    if not done:
        chat.console.print(NOTHING_LINE)


@register("agent:status", "Show the sub-agent task queue")
def agent_status(chat: ChatContext, args: str) -> None:
    from acode.cli.agent_queue import task_table

    store = _store(chat)
    store.recover_stale()
    tasks, problems = store.scan()
    for problem in problems:
        print_problem(chat.console, "warning", problem.message, style="yellow")
    if not tasks:
        chat.console.print("No agent tasks yet.")
        return
    chat.console.print(task_table(tasks))


def _custom_commands(chat: ChatContext) -> dict[str, Any]:
    from acode.commands.loader import load_commands

    dirs = [(e.commands_dir, e.name) for e in chat.session.extensions if e.commands_dir is not None]
    return load_commands(_root(chat), dirs)


@register("commands", "List the custom commands (.acode/commands/**/*.toml, ~/.config/acode/commands)")
def list_custom(chat: ChatContext, args: str) -> None:
    commands = _custom_commands(chat)
    if not commands:
        chat.console.print("No custom commands. Add one: .acode/commands/<name>.toml with prompt = \"...\"")
    for command in commands.values():
        chat.console.print(f"  [bold]/{command.name}[/]  {command.description} [dim]({command.scope})[/]")


def _confirm_shell(chat: ChatContext):
    if not getattr(chat.session.options, "interactive", False):
        return None  # non-interactive: only agent.rules.allow_shell prefixes run

    def confirm(command: str) -> bool:
        answer = chat.console.input(f"Run [bold]{escape(command)}[/] for this command? \\[y/N] ")
        return answer.strip().lower() in ("y", "yes")

    return confirm


def _check_trusted(chat: ChatContext, command: Any) -> None:
    """A command file from the project itself (.acode/commands, a project extension) may run ``!{...}``
    only in a trusted folder (config.trust)."""
    from acode.commands.expand import split_template

    trust = chat.session.settings.trust
    from_project = Path(command.path).resolve().is_relative_to((_root(chat) / ".acode").resolve())
    runs_shell = any(p.kind == "shell" for p in split_template(command.prompt))
    if trust.trusted or not from_project or not runs_shell:
        return
    raise AcodeError(
        "ACODE-TRUST-001",
        f"/{command.name} runs shell commands (!{{...}}) from this project's {command.path.name}, and "
        f"{trust.root} "
        f"is {trust.reason}",
        hint="trust the folder with `acode trust` (or start acode with --trust) to run it",
    )


def run_custom_command(chat: ChatContext, name: str, args: str) -> None:
    from acode.commands.expand import expand_command

    command = _custom_commands(chat).get(name)
    if command is None:
        chat.console.print(f"[red]unknown command[/] /{name}")
        return
    try:
        _check_trusted(chat, command)
        prompt = expand_command(
            command.prompt,
            args,
            _root(chat),
            confirm=_confirm_shell(chat),
            allow_shell=chat.session.settings.agent.rules.allow_shell,
            deny_shell=chat.session.settings.agent.rules.deny_shell,
            approval_mode=chat.session.state.approval_mode,
        )
    except AcodeError as exc:
        _report(chat, exc)
        return
    chat.submit(prompt, shown=f"/{name} {args}".strip())


def _resolve(name: str) -> SlashCommand | None:
    """A custom command by name (names are only known at run time, from the files)."""
    from acode.commands.loader import load_commands
    from acode.extensions.loader import load_enabled_extensions
    from acode.paths import find_project_root

    root = find_project_root()
    try:
        dirs = [(e.commands_dir, e.name) for e in load_enabled_extensions(root) if e.commands_dir is not None]
    except AcodeError:
        dirs = []
    command = load_commands(root, dirs).get(name)
    if command is None:
        return None
    return SlashCommand(name, command.description, lambda chat, args: run_custom_command(chat, name, args))


register_resolver(_resolve)
