"""The first commands, run as a person runs them: a real subprocess, exit codes, stdout vs stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acode import __version__

HEAVY = ("llama_cpp", "httpx", "mcp")


def _acode(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None):
    return subprocess.run(
        [sys.executable, "-m", "acode", *args],
        check=False,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def script(tmp_path) -> Path:
    path = tmp_path / "answers.yml"
    path.write_text("- Hello from the script.\n- Second answer.\n")
    return path


def test_version(tmp_path):
    result = _acode("--version", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.strip() == f"acode {__version__}"


@pytest.mark.parametrize("argv", [["--help"], ["models", "--help"], ["ask", "--help"], ["config", "--help"]])
def test_help_imports_no_heavy_module(tmp_path, argv):
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "from acode.cli.main import app\n"
        f"result = CliRunner().invoke(app, {argv!r})\n"
        "assert result.exit_code == 0, result.output\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))\n"
        "print('Usage' in result.output)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["[]", "True"]


def test_top_level_help_lists_the_commands(tmp_path):
    result = _acode("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("ask", "models", "config"):
        assert command in result.stdout


def test_ask_json_with_the_scripted_backend(tmp_path, script):
    result = _acode(
        "ask", "hi", "--backend", "scripted", "--json", cwd=tmp_path, env={"ACODE_MODEL__SCRIPT": str(script)}
    )
    assert result.returncode == 0, result.stderr
    completion = json.loads(result.stdout)
    assert completion["text"] == "Hello from the script."
    assert completion["finish_reason"] == "stop" and completion["tool_calls"] == []
    assert completion["usage"]["prompt_tokens"] >= 1


def test_ask_streams_plain_text_and_reads_stdin(tmp_path, script):
    env = {"ACODE_MODEL__SCRIPT": str(script), "ACODE_MODEL__BACKEND": "scripted"}
    result = _acode("ask", "-", "--system", "be brief", cwd=tmp_path, env=env, stdin="what?")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Hello from the script.\n"


def test_ask_with_unknown_model_name_is_a_clear_usage_error(tmp_path):
    result = _acode("ask", "hi", "--model", "qwen-99b", cwd=tmp_path)
    assert result.returncode == 2
    assert "ACODE-MODEL-003" in result.stderr and "qwen2.5-coder-0.5b" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_scripted_backend_without_script_is_a_config_error(tmp_path):
    result = _acode("ask", "hi", "--backend", "scripted", cwd=tmp_path)
    assert result.returncode == 2
    assert "ACODE-CFG-022" in result.stderr and "model.script" in result.stderr


def test_bad_backend_flag_names_the_allowed_values(tmp_path):
    result = _acode("ask", "hi", "--backend", "cloud", cwd=tmp_path)
    assert result.returncode == 2
    assert "'cloud'" in result.stderr and "embedded" in result.stderr and "Traceback" not in result.stderr


def test_model_path_that_is_not_gguf_is_refused(tmp_path):
    fake = tmp_path / "model.gguf"
    fake.write_text("not a model")
    for argv in (["ask", "hi", "--model", str(fake)], ["models", "info", str(fake)]):
        result = _acode(*argv, cwd=tmp_path)
        assert result.returncode == 1
        assert "ACODE-MODEL-002" in result.stderr and str(fake) in result.stderr


def test_models_list_json_reports_the_two_bundled_models(tmp_path):
    result = _acode("models", "list", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert set(rows) == {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"}
    assert rows["qwen2.5-coder-1.5b"]["default"] is True and rows["qwen2.5-coder-0.5b"]["default"] is False
    assert rows["qwen2.5-coder-0.5b"]["parts_installed"] == rows["qwen2.5-coder-0.5b"]["parts_total"] == 6


def test_models_pull_and_info_on_an_unknown_name(tmp_path):
    for argv in (["models", "pull", "nope"], ["models", "info", "nope"]):
        result = _acode(*argv, cwd=tmp_path)
        assert result.returncode == 2 and "ACODE-MODEL-003" in result.stderr


def test_error_text_with_brackets_is_printed_verbatim(tmp_path):
    missing = tmp_path / "weights[local].gguf"
    result = _acode("ask", "hi", "--model", str(missing), cwd=tmp_path)
    assert result.returncode == 2
    assert "ACODE-MODEL-001" in result.stderr and str(missing) in result.stderr
