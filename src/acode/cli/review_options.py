"""The options `acode review` and `acode review run` share (and `show`'s output options), written once."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from acode.cli.review_fix import FIX

BASE = typer.Option(
    None, "--base", "-b", help="Base branch (default: origin's default branch, else main, else master)."
)
UNCOMMITTED = typer.Option(False, "--uncommitted", help="Review the working tree and index against HEAD.")
STAGED = typer.Option(
    False, "--staged", help="Review only what is staged (what `git commit` would record): for pre-commit."
)
COMMIT = typer.Option(None, "--commit", help="Review one commit.")
INTENT = typer.Option(None, "--intent", help="What the change should do (default: the commit messages).")
RUN_TESTS = typer.Option(
    None, "--run-tests/--no-run-tests",
    help="Run the tests related to the change on both sides of it (reviewer.test_command, default "
    "python -m pytest -q on those files); a test the change breaks rejects it. Default (reviewer.run_tests: "
    "auto): run them only inside the sandbox (bubblewrap: no network, read-only files); --run-tests runs "
    "them even where there is no sandbox, --no-run-tests never.",
)
SUGGEST = typer.Option(
    None, "--suggest/--no-suggest",
    help="Also ask the model for its own findings (reviewer.strategy single_call): each is checked by a "
    "yes/no question and shown as advice unless the check firmly confirms it. About 30 s more with the 1.5B "
    "on two cores. Default (reviewer.strategy: checks_only): the regression check and the evidence only.",
)
JSON = typer.Option(False, "--json", help="Print the result as JSON.")
DESCRIBE = typer.Option(
    False, "--describe",
    help="Print a pull-request description instead of the review: files and functions changed, behaviour "
    "differences, tests added or affected, risk (all from the checks, no model), and a short summary by the "
    "model (left out, with the reason, when the model cannot give one). Markdown; --json for JSON; -o FILE.",
)
FORMAT = typer.Option(
    None, "--format", "-f",
    help="markdown | sarif | github (workflow annotations) | gitlab (Code Quality JSON) | junit | rdjson "
    "(reviewdog); printed, or written with -o.",
)
OUTPUT = typer.Option(None, "--output", "-o", help="Write the report to this file.")
MODEL = typer.Option(None, "--model", "-m", help="Bundled model name, server model name or a .gguf path.")
BACKEND = typer.Option(
    None, "--backend", help="embedded | openai | scripted | none (no model: the review runs its checks only)"
)
TRUST = typer.Option(
    False, "--trust", help="Trust this project's own settings for this review (its test_command)."
)
FRESH = typer.Option(
    False, "--fresh", help="Review again even when a stored review has the same change and settings."
)


def _option(name: str, annotation: Any, option: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


# What to review, how, and where the report goes: `acode review` and `acode review run`, in this order.
REVIEW = (
    _option("base", str, BASE),
    _option("uncommitted", bool, UNCOMMITTED),
    _option("staged", bool, STAGED),
    _option("commit", str, COMMIT),
    _option("intent", str, INTENT),
    _option("run_tests", bool | None, RUN_TESTS),
    _option("suggest", bool | None, SUGGEST),
    _option("json_out", bool, JSON),
    _option("fmt", str, FORMAT),
    _option("output", Path, OUTPUT),
    _option("model", str, MODEL),
    _option("backend", str, BACKEND),
    _option("trust", bool, TRUST),
)
DESCRIBE_OPTION = _option("describe", bool, DESCRIBE)
FIX_OPTION = _option("fix", bool, FIX)
FRESH_OPTION = _option("fresh", bool, FRESH)
CONTEXT = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)


def takes(*parameters: inspect.Parameter) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The command below takes these parameters (its own as `**options`): typer reads a command's options
    from its signature, so giving it this one lists them as if they were written out in the function."""

    def give(command: Callable[..., Any]) -> Callable[..., Any]:
        command.__signature__ = inspect.Signature(list(parameters))  # type: ignore[attr-defined]
        return command

    return give
