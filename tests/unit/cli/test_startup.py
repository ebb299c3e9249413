"""Start-up pays only for what a command uses: checked by the modules a real `acode ...` process has
imported when it exits, not by the clock (benchmarks/speed/startup.py measures the seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

# Runs acode exactly as `python -m acode ARGS` does, then reports the modules it imported on the way out.
RUN_AND_REPORT = """
import atexit, json, runpy, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv = ["acode", *sys.argv[1:]]
runpy.run_module("acode", run_name="__main__")
"""

NEVER = ("llama_cpp", "httpx")
SETTINGS_MODELS = "acode.config.settings"


def imported_by(args: list[str], cwd: Path) -> tuple[set[str], subprocess.CompletedProcess]:
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_REPORT, *args], cwd=cwd, capture_output=True, text=True, timeout=60,
        check=False,
        env={**os.environ, "COLUMNS": "100"},
    )
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return set(json.loads(line.removeprefix("MODULES "))), done


def _tops(modules: set[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_help_imports_neither_pydantic_nor_the_settings_models(tmp_path):
    modules, done = imported_by(["--help"], tmp_path)
    assert done.returncode == 0 and "Usage" in done.stdout
    assert SETTINGS_MODELS not in modules
    assert not _tops(modules) & {"pydantic", "yaml", *NEVER}


@pytest.mark.parametrize(
    "args", [["config", "path"], ["summary"], ["review", "--help"], ["sessions", "--help"]]
)
def test_commands_that_read_no_settings_do_not_load_them(tmp_path, args):
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    modules, done = imported_by(args, tmp_path)
    assert "Traceback" not in done.stderr
    assert done.returncode in (0, 2), done.stderr  # `summary` with nothing stored is a usage error (2)
    assert SETTINGS_MODELS not in modules
    assert not _tops(modules) & set(NEVER)


def test_a_command_that_reads_settings_still_loads_them(tmp_path):
    """The other side: `config show` reads the settings, so the lazy import must still happen."""
    modules, done = imported_by(["config", "show", "--json"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert SETTINGS_MODELS in modules and json.loads(done.stdout)["model"]["backend"]


# typer's help renderer imports these for markdown help text and pretty tracebacks, which --help never uses
HELP_NEVER = ("rich.markdown", "rich.traceback", "rich.pretty", "markdown_it", "attr")

PRELOAD_AND_RUN = """
import runpy, sys
import rich.markdown, rich.traceback  # the real modules first: typer's renderer as it comes
sys.argv = ["acode", *sys.argv[1:]]
runpy.run_module("acode", run_name="__main__")
"""


def test_help_does_not_import_what_only_markdown_help_and_tracebacks_need(tmp_path):
    modules, done = imported_by(["--help"], tmp_path)
    assert done.returncode == 0 and "Commands" in done.stdout
    assert not modules & set(HELP_NEVER), modules & set(HELP_NEVER)
    # the same help as typer's renderer gives with every module it imports really imported
    full = subprocess.run([sys.executable, "-c", PRELOAD_AND_RUN, "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "COLUMNS": "100"})
    assert full.returncode == 0 and full.stdout == done.stdout


def test_after_the_help_renderer_the_real_modules_import_and_the_stand_ins_work():
    code = """
import sys
from acode.cli.help_imports import DEFERRED, import_help_renderer
import_help_renderer()
assert not any(m in sys.modules for m in DEFERRED), "a stand-in stayed"
import rich.markdown, typer.rich_utils
assert rich.markdown.Markdown.__module__ == "rich.markdown"
made = typer.rich_utils._make_rich_text(text="**bold**", markup_mode="markdown")
assert type(made) is rich.markdown.Markdown, type(made)
try:
    raise ValueError("x")
except ValueError as exc:
    from typer.models import DeveloperExceptionConfig
    shown = typer.rich_utils.get_traceback(exc, DeveloperExceptionConfig(), [])
import rich.traceback
assert type(shown) is rich.traceback.Traceback
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.stdout.strip() == "ok", done.stderr
