"""Issue 30 item 4: context files are read only from inside the project (and an extension's context file
only from inside its folder), symlinks resolved, as ``@import`` already was: an extension manifest's
``contextFileName`` that is absolute or climbs out with ``..``, and a repository's ``AGENTS.md`` that is a
symlink to a file outside, never reach the system prompt, the sessions database or ``acode memory show``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import yaml

from acode.paths import ProjectPaths


def acode(repo: Path, *args: str) -> subprocess.CompletedProcess:
    script = repo.parent / "context-script.yml"
    script.write_text(yaml.safe_dump(["done"]))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_NEXT_SPEAKER__ENABLED="false",
               COLUMNS="250")
    return subprocess.run([sys.executable, "-m", "acode", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL, check=False)


def everything_stored(repo: Path) -> str:
    with sqlite3.connect(ProjectPaths(repo).db_file) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return "\n".join(str(row) for t in tables for row in db.execute(f"SELECT * FROM {t}"))


def test_context_files_that_lead_out_of_the_project_are_not_read(git_repo):
    outside = git_repo.parent
    for n in (1, 2, 3):
        (outside / f"outside{n}.txt").write_text(f"OUTSIDE-MARKER-{n}: the user's private notes\n")
    (git_repo / "AGENTS.md").symlink_to("../outside1.txt")
    extensions = git_repo / ".acode" / "extensions"
    (extensions / "climbs").mkdir(parents=True)
    (extensions / "absolute.json").write_text(
        json.dumps({"name": "absolute", "contextFileName": str(outside / "outside2.txt")})
    )
    (extensions / "climbs" / "acode-extension.json").write_text(
        json.dumps({"name": "climbs", "contextFileName": "../../../../outside3.txt"})
    )
    (extensions / "climbs" / "HOUSE.md").write_text("house rule")  # a context file inside stays readable
    (git_repo / "ACODE.md").write_text("INSIDE-MARKER: use tabs\n")
    assert (extensions / "climbs" / "../../../../outside3.txt").resolve() == outside / "outside3.txt"

    shown = acode(git_repo, "memory", "show", "--json")
    assert shown.returncode == 0, shown.stderr
    assert "OUTSIDE-MARKER" not in shown.stdout and "INSIDE-MARKER" in shown.stdout
    assert "AGENTS.md is a symlink to" in shown.stderr

    out = acode(git_repo, "-p", "hello", "--backend", "scripted", "--json")
    assert out.returncode == 0, out.stderr
    stored = everything_stored(git_repo)
    assert "INSIDE-MARKER" in stored  # the system prompt is stored, with the project's own context file
    assert "OUTSIDE-MARKER" not in stored and "OUTSIDE-MARKER" not in out.stdout
    assert "contextFileName ../../../../outside3.txt leads outside" in out.stderr
    assert f"contextFileName {outside / 'outside2.txt'} leads outside" in out.stderr


def test_a_symlinked_context_file_inside_the_project_is_still_read(git_repo):
    (git_repo / "docs").mkdir()
    (git_repo / "docs" / "AGENTS.md").write_text("SHARED-RULES: run pytest -q\n")
    (git_repo / "AGENTS.md").symlink_to("docs/AGENTS.md")
    ext = git_repo / ".acode" / "extensions" / "house"
    ext.mkdir(parents=True)
    (ext / "acode-extension.json").write_text(json.dumps({"name": "house", "contextFileName": "HOUSE.md"}))
    (ext / "HOUSE.md").write_text("HOUSE-RULE: no tabs\n")
    out = acode(git_repo, "-p", "hello", "--backend", "scripted", "--json")
    assert out.returncode == 0, out.stderr
    stored = everything_stored(git_repo)
    assert "SHARED-RULES" in stored and "HOUSE-RULE" in stored
