"""Layered settings: defaults < user file < project file < ACODE_* variables < flags, and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from acode.config import load_settings
from acode.errors import ConfigError
from acode.paths import user_config_dir


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    (root / ".acode").mkdir(parents=True)
    return root


def test_defaults_when_nothing_is_configured(project):
    settings = load_settings(project, env={})
    assert settings.model.backend == "embedded"
    assert settings.model.name == "qwen2.5-coder-1.5b"
    assert settings.model.context_window == 8192


def test_each_layer_overrides_the_one_below_and_merges_deeply(project):
    _write(
        user_config_dir() / "config.yml", "model:\n  name: user-model\n  context_window: 1024\n  seed: 7\n"
    )
    _write(project / ".acode" / "config.yml", "model:\n  name: project-model\n  context_window: 2048\n")
    env = {"ACODE_MODEL__CONTEXT_WINDOW": "4096"}

    assert load_settings(project, env={}).model.name == "project-model"
    layered = load_settings(project, env=env)
    assert layered.model.context_window == 4096  # env beats project
    assert layered.model.name == "project-model"  # project beats user
    assert layered.model.seed == 7  # untouched keys of lower layers survive

    flagged = load_settings(project, env=env, overrides={"model.context_window": 16384, "model.name": None})
    assert flagged.model.context_window == 16384  # flags beat env
    assert flagged.model.name == "project-model"  # a flag that was not given overrides nothing


def test_environment_values_are_typed(project):
    settings = load_settings(
        project,
        env={"ACODE_MODEL__BACKEND": "openai", "ACODE_AGENT__MAX_TURNS": "5", "ACODE_MODEL__THREADS": "2"},
    )
    assert settings.model.backend == "openai"
    assert settings.agent.max_turns == 5 and settings.model.threads == 2


def test_off_and_yes_are_words_where_a_setting_takes_words_and_booleans_where_it_takes_booleans(project):
    """YAML 1.1 reads `off`/`on`/`yes`/`no` as booleans, so `method: off` was refused ("False is not
    allowed") in a file and in ACODE_REVIEWER__REGRESSION__METHOD=off."""
    _write(project / ".acode" / "config.yml", "reviewer:\n  regression:\n    method: off\n  lookaround:\n"
           "    enabled: no\n")
    settings = load_settings(project, env={})
    assert settings.reviewer.regression.method == "off" and settings.reviewer.lookaround.enabled is False
    from_env = load_settings(project, env={"ACODE_REVIEWER__REGRESSION__METHOD": "off",
                                           "ACODE_REVIEWER__LOOKAROUND__ENABLED": "yes"})
    assert from_env.reviewer.regression.method == "off" and from_env.reviewer.lookaround.enabled is True


def test_bad_value_names_file_key_value_and_what_is_allowed(project):
    config = _write(project / ".acode" / "config.yml", "model:\n  context_window: 12\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(project, env={})
    message = caught.value.message
    assert str(config) in message
    assert "model.context_window" in message and "12" in message
    assert "greater than or equal to 512" in message
    assert caught.value.exit_code == 2 and caught.value.code == "ACODE-CFG-010"


def test_bad_choice_lists_the_allowed_values(project):
    _write(user_config_dir() / "config.yml", "model:\n  backend: gpt\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(project, env={})
    message = caught.value.message
    assert str(user_config_dir() / "config.yml") in message
    assert "'gpt'" in message and "'embedded'" in message and "'openai'" in message


def test_typo_in_a_key_suggests_the_right_one(project):
    _write(project / ".acode" / "config.yml", "model:\n  contxt_window: 4096\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(project, env={})
    assert "unknown key 'model.contxt_window'" in caught.value.message
    assert "did you mean 'context_window'" in caught.value.message


def test_bad_environment_value_names_the_variable(project):
    with pytest.raises(ConfigError) as caught:
        load_settings(project, env={"ACODE_MODEL__CONTEXT_WINDOW": "lots"})
    assert "environment variable ACODE_MODEL__CONTEXT_WINDOW" in caught.value.message
    assert "'lots'" in caught.value.message


def test_invalid_yaml_names_the_line(project):
    config = _write(project / ".acode" / "config.yml", "model:\n  name: [unclosed\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(project, env={})
    assert caught.value.code == "ACODE-CFG-001"
    assert str(config) in caught.value.message and "line" in caught.value.message


def _acode(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "acode", *args],
        check=False,
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_cli_reports_a_config_error_with_exit_code_2(project):
    _write(project / ".acode" / "config.yml", "model:\n  context_window: -5\n")
    result = _acode("config", "show", cwd=project)
    assert result.returncode == 2
    assert "ACODE-CFG-010" in result.stderr and "model.context_window" in result.stderr
    assert "Traceback" not in result.stderr


def test_cli_config_show_and_path_reflect_the_layers(project):
    _write(project / ".acode" / "config.yml", "model:\n  name: project-model\n")
    result = _acode("config", "show", "--json", cwd=project, env={"ACODE_MODEL__SEED": "42"})
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout)
    assert shown["model"]["name"] == "project-model" and shown["model"]["seed"] == 42

    paths = json.loads(_acode("config", "path", "--json", cwd=project, env={"ACODE_MODEL__SEED": "1"}).stdout)
    layers = {entry["layer"]: entry for entry in paths["files"]}
    assert layers["project"]["path"] == str(project.resolve() / ".acode" / "config.yml")
    assert layers["project"]["exists"] is True and layers["user"]["exists"] is False
    assert "ACODE_MODEL__SEED" in paths["environment"]
