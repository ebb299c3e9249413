"""``acode`` entry point. Sub-command modules are registered here; each one imports its service lazily
so ``acode --help`` stays fast and never loads llama_cpp or httpx."""

from __future__ import annotations

import os
import sys

import typer

from acode import __version__
from acode.cli.app_group import VERBOSE_FLAGS, VERBOSE_HELP, AcodeGroup, hide_flag_types
from acode.cli.common import SANDBOX_HELP, err_console
from acode.cli.terminal_safety import log_to_stderr
from acode.errors import AcodeError

hide_flag_types()

app = typer.Typer(
    cls=AcodeGroup,
    name="acode",
    help=(
        "A local-first coding agent: every model call runs on your machine "
        "(embedded llama.cpp by default, or your own Ollama / vLLM / llama.cpp server).\n\n"
        "  acode                      interactive chat\n\n"
        "  acode -p 'fix the failing test'   one-shot, prints the final answer\n\n"
        "  acode run 'add is_even to util.py'   plan -> execute -> verify -> review\n\n"
        "  acode review               review this branch against its base"
    ),
    add_completion=False,
    pretty_exceptions_enable=False,  # an unexpected error is one message and a crash file (cli/crash.py)
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)


_TRUST = typer.Option(
    False, "--trust", help="Trust this project's own settings for this command (hooks, MCP, tests)."
)
_EXTENSIONS = typer.Option(None, "-e", "--extensions", help="Enable only these extensions ('none': none).")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"acode {__version__}")
        raise typer.Exit()


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    prompt: str = typer.Option(
        None, "-p", "--prompt", help="Run once non-interactively and print the answer."
    ),
    prompt_interactive: str = typer.Option(
        None, "-i", "--prompt-interactive", help="Run this prompt, then stay in the chat."
    ),
    approval_mode: str = typer.Option(
        None,
        "--approval-mode",
        help="default | auto_edit | yolo | plan (default: from config, else 'default').",
    ),
    yolo: bool = typer.Option(False, "-y", "--yolo", help="Approve every tool call: --approval-mode yolo."),
    model: str = typer.Option(
        None, "--model", "-m", help="Bundled model name, server model name or a .gguf path."
    ),
    backend: str = typer.Option(None, "--backend", help="embedded | openai | scripted"),
    resume: str = typer.Option(
        None, "-r", "--resume", help="Resume a session: its id, or the latest one (-r alone, or 'latest')."
    ),
    json_out: bool = typer.Option(False, "--json", help="With -p: print the whole trajectory as JSON."),
    output_format: str = typer.Option(
        None,
        "--output-format",
        "-o",
        help="With -p: text (the answer) | json (the whole trajectory, same as --json) | stream-json (one "
             "JSON "
        "event per line as it happens).",
    ),
    auto_commit: bool = typer.Option(
        False,
        "--auto-commit",
        help="Commit each turn that changed files, marked as acode's (git.auto_commit).",
    ),
    approve_plan: bool = typer.Option(
        False, "--approve-plan", help="Non-interactive: approve the plan in plan mode."
    ),
    no_loop_detection: bool = typer.Option(False, "--no-loop-detection", help="Turn loop detection off."),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP),
    extensions: list[str] = _EXTENSIONS,
    trust: bool = _TRUST,
    verbose: bool = typer.Option(False, *VERBOSE_FLAGS, help=VERBOSE_HELP),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    from acode.cli.trust_question import trust_this_run

    trust_this_run(trust)
    log_to_stderr(verbose)
    if ctx.invoked_subcommand is not None:
        return
    from acode.cli.chat import start_agent

    output = "text"
    if output_format is not None or json_out:  # the stream-json event models only when asked for
        from acode.cli.stream_json import check_output_format

        output = check_output_format(output_format, json_out)

    start_agent(
        prompt=prompt,
        approval_mode=approval_mode,
        yolo=yolo,
        model=model,
        backend=backend,
        resume=resume,
        json_out=json_out,
        approve_plan=approve_plan,
        no_loop_detection=no_loop_detection,
        extensions=extensions,
        verbose=verbose,
        output_format=output,
        auto_commit=auto_commit,
        prompt_interactive=prompt_interactive,
        sandbox=sandbox,
    )


def _register() -> None:
    """One line per command module (each module keeps its heavy imports inside its commands)."""
    from acode.cli import config_cmd
    from acode.cli import models as models_cli

    app.add_typer(models_cli.app, name="models")
    app.command("ask")(models_cli.ask)
    app.add_typer(config_cmd.app, name="config")
    from acode.cli import trust_cmd

    app.command("trust")(trust_cmd.trust)
    from acode.cli import memory_cmd

    app.add_typer(memory_cmd.app, name="memory")
    from acode.cli import run as run_cli

    for name in ("run", "summary", "audit", "stats"):
        app.command(name)(getattr(run_cli, name))
    from acode.cli import sessions as sessions_cli

    app.add_typer(sessions_cli.app, name="sessions")
    from acode.cli import agent_queue

    app.add_typer(agent_queue.agent_app, name="agent")
    app.add_typer(agent_queue.agents_app, name="agents")
    app.add_typer(agent_queue.extensions_app, name="extensions")
    from acode.cli.review import review_app

    app.add_typer(review_app, name="review")


_register()


def run() -> None:
    """Console-script entry: people get one clear message and an exit code, never a traceback."""
    try:
        app()
    except AcodeError as exc:
        from acode.cli.common import print_problem

        print_problem(err_console, "error", exc)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err_console.print("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        os._exit(0)
    except Exception as exc:  # noqa: BLE001  a bug in acode: one message and where its traceback went
        from acode.cli.crash import report_crash

        sys.exit(report_crash(err_console, exc))
