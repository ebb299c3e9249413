"""Issue 30 item 8: a file name that is not UTF-8 (``bad\\xff.py``) crashed the session at the first
listing (``UnicodeEncodeError ... surrogates not allowed`` from the sessions database). Such names are
shown with ``\\xNN`` escapes, everywhere, and the tools take the escaped name back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

BAD = os.fsdecode(b"bad\xff.py")  # the name as os.listdir gives it: bad\udcff.py
SHOWN = "bad\\xff.py"


def test_listing_searching_and_reading_a_non_utf8_name_through_the_cli(git_repo: Path):
    (git_repo / ".acode").mkdir()
    (git_repo / BAD).write_text("print('from the odd file')\n")
    script = git_repo.parent / "names-script.yml"
    script.write_text(yaml.safe_dump([
        {"tool": "list_directory", "arguments": {"dir_path": "."}},
        {"tool": "glob", "arguments": {"pattern": "*.py"}},
        {"tool": "grep_search", "arguments": {"pattern": "odd file"}},
        {"tool": "read_file", "arguments": {"file_path": SHOWN}},
        {"tool": "replace", "arguments": {"file_path": SHOWN, "old_string": "odd", "new_string": "strange"}},
        "done",
    ]))
    env = dict(os.environ, ACODE_MODEL__SCRIPT=str(script), ACODE_NEXT_SPEAKER__ENABLED="false")
    out = subprocess.run(
        [sys.executable, "-m", "acode", "-p", "look around", "--backend", "scripted", "--json",
         "--approval-mode", "yolo"],
        cwd=git_repo, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert "Traceback" not in out.stderr and "UnicodeEncodeError" not in out.stderr
    steps = [s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool"]
    assert [s["ok"] for s in steps] == [True] * 5, [(s["name"], s.get("error")) for s in steps]
    assert all(SHOWN in s["output"] for s in steps[:3])
    assert "from the odd file" in steps[3]["output"]
    assert (git_repo / BAD).read_text() == "print('from the strange file')\n"
    assert SHOWN in out.stderr  # the progress lines show the escaped name too


def test_an_at_reference_that_finds_a_non_utf8_name(git_repo: Path):
    from acode.agent.session.at_refs import expand_at_refs
    from acode.tools.base import ToolContext

    (git_repo / BAD).write_text("x = 1\n")
    expansion = expand_at_refs("explain @*.py", ToolContext(workspace=git_repo))
    assert expansion.included == [SHOWN] and "x = 1" in expansion.prompt
    expansion.prompt.encode("utf-8")  # no lone surrogate left
