"""The CLI switches of the self-control mechanisms, through `acode -p` with the scripted backend."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml


def run_acode(project: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "acode", *args],
        check=False, cwd=project, capture_output=True, text=True, timeout=120,
    )


def project_with_script(tmp_path: Path, steps: list) -> Path:
    (tmp_path / ".acode").mkdir()
    (tmp_path / "script.yml").write_text(yaml.safe_dump(steps))
    (tmp_path / ".acode" / "config.yml").write_text(
        yaml.safe_dump({"model": {"backend": "scripted", "script": "script.yml"}})
    )
    (tmp_path / "a.py").write_text("x = 1\n")
    return tmp_path


REPEATING = [{"tool": "read_file", "arguments": {"file_path": "a.py"}}] * 7 + ["x is 1"]


def test_repetition_stops_a_one_shot_run(tmp_path):
    project = project_with_script(tmp_path, REPEATING)
    out = run_acode(project, "-p", "what is x?", "--json")
    assert out.returncode == 1, out.stderr
    result = json.loads(out.stdout)
    assert result["stop_reason"] == "loop_detected"
    assert "repeating itself" in result["message"]


def test_no_loop_detection_flag_lets_it_finish(tmp_path):
    project = project_with_script(tmp_path, REPEATING)
    out = run_acode(project, "-p", "what is x?", "--json", "--no-loop-detection")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["answer"] == "x is 1"


def test_config_switch_turns_it_off(tmp_path):
    project = project_with_script(tmp_path, REPEATING)
    config = yaml.safe_load((project / ".acode" / "config.yml").read_text())
    config["loop_detection"] = {"enabled": False}
    (project / ".acode" / "config.yml").write_text(yaml.safe_dump(config))
    out = run_acode(project, "-p", "what is x?", "--json")
    assert out.returncode == 0, out.stderr
