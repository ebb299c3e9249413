"""Issue 14 items 6, 8 and 13: hostile input to the tools (a catastrophic regex, a non-UTF-8 file, a
FIFO, a huge single-line file, a command that leaves children behind or floods its output)."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path

import pytest
from tests.helpers.agent_cli import run_cli, write_script

from acode.llm.types import ToolCall
from acode.tools.base import ToolContext, ToolRegistry
from acode.tools.search import GrepSearch, SearchInFiles
from acode.tools.shell import _Capture


def tool_steps(out, exit_code: int = 0) -> list[dict]:
    assert out.returncode == exit_code, out.stderr
    return [s for s in json.loads(out.stdout)["trajectory"] if s["type"] == "tool"]


# -- item 6: a catastrophic regex is stopped at the search timeout ----------------------------------

@pytest.mark.timeout(120)
@pytest.mark.parametrize("engine", ["python", "auto", "git"])
@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(a|aa)+$"])
def test_catastrophic_regex_stops_at_the_timeout(git_repo, engine, pattern):
    (git_repo / "a.txt").write_text("a" * 60 + "!\n")
    registry = ToolRegistry(
        [GrepSearch(engine=engine, timeout=3.0), SearchInFiles(engine=engine, timeout=3.0)]
    )
    for name in ("grep_search", "search_in_files"):
        result = registry.dispatch(
            ToolCall(name=name, arguments={"pattern": pattern}), ToolContext(workspace=git_repo)
        )
        assert result.error is not None, (name, result)
        # git's PCRE gives up by itself ("match limit exceeded"); Python's engine is stopped at 3 s
        assert "Search timed out after 3s" in result.error or "match limit" in result.error, (name, result)
        if engine != "git":
            assert "Search timed out after 3s" in result.error


@pytest.mark.timeout(120)
def test_a_search_after_a_timeout_still_works(git_repo):
    (git_repo / "a.txt").write_text("a" * 60 + "!\nneedle here\n")
    registry = ToolRegistry([GrepSearch(engine="python", timeout=2.0)])
    ctx = ToolContext(workspace=git_repo)
    assert (
        "timed out"
        in registry.dispatch(ToolCall(name="grep_search", arguments={"pattern": "(a|aa)+$"}), ctx).error
    )
    found = registry.dispatch(ToolCall(name="grep_search", arguments={"pattern": "need+le"}), ctx)
    assert found.ok and "a.txt" in found.output and "2: needle here" in found.output


# -- item 8: replace keeps the bytes of a file that is not UTF-8 -------------------------------------


def test_replace_keeps_latin1_bytes(git_repo):
    """A Latin-1 `café` became `caf\\uFFFD` after an unrelated edit."""
    latin = "# café\nvalue = 1\n".encode("latin-1")
    (git_repo / "legacy.py").write_bytes(latin)
    script = write_script(
        git_repo,
        [
            {
                "tool": "replace",
                "arguments": {"file_path": "legacy.py", "old_string": "value = 1", "new_string": "value = 2"},
            },
            {
                "tool": "replace",
                "arguments": {
                    "file_path": "legacy.py",
                    "old_string": "value = 2",
                    "new_string": "value = 'é'",
                },
            },
            "done",
        ],
    )
    steps = tool_steps(run_cli(git_repo, script, "-p", "go", "--json", "--approval-mode", "auto_edit"))
    assert steps[0]["ok"] and (git_repo / "legacy.py").read_bytes() == "# café\nvalue = 2\n".encode("latin-1")
    assert not steps[1]["ok"] and "not UTF-8" in steps[1]["error"]  # would mix two encodings: refused
    assert (git_repo / "legacy.py").read_bytes() == "# café\nvalue = 2\n".encode("latin-1")


# -- item 13: nothing outlives a command, spill files are capped, FIFOs and huge lines ---------------


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_background_children_of_a_finished_command_are_stopped(git_repo):
    pid_file = git_repo.parent / "child.pid"
    script = write_script(
        git_repo,
        [
            {
                "tool": "run_shell_command",
                "arguments": {"command": f"sleep 1000 & echo $! > {pid_file}; echo started"},
            },
            "done",
        ],
    )
    # as the user: in the sandbox the pid file is out of reach, and the whole sandbox ends with the command
    # (tests/unit/test_command_sandbox.py)
    steps = tool_steps(run_cli(git_repo, script, "-p", "go", "--json", "--approval-mode", "yolo", "--sandbox",
                               "off"))
    assert "started" in steps[0]["output"] and "left running were stopped" in steps[0]["output"]
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def test_a_child_ignoring_sigterm_is_killed(workspace, call):
    pid_file = workspace / "pid"
    result = call("run_shell_command", command=f"(trap '' TERM; exec sleep 1000) & echo $! > {pid_file}")
    assert result.ok
    assert not _alive(int(pid_file.read_text()))


def test_spill_file_has_a_size_cap(tmp_path):
    spill = tmp_path / "spill.txt"
    capture = _Capture(spill, spill_max=6 << 20)  # keeps 2 MiB of head and the 4 MiB tail
    chunk = b"x" * (1 << 20)
    for _ in range(40):
        capture.add(chunk)
    capture.add(b"THE END\n")
    capture.finish()
    data = spill.read_bytes()
    assert len(data) < (6 << 20) + 200 and data.endswith(b"THE END\n")
    assert b"bytes not saved" in data and capture.total == 40 * (1 << 20) + 8


def test_read_file_refuses_a_fifo_instead_of_blocking(git_repo):
    os.mkfifo(git_repo / "pipe")
    script = write_script(
        git_repo,
        [
            {"tool": "read_file", "arguments": {"file_path": "pipe"}},
            {"tool": "write_file", "arguments": {"file_path": "pipe", "content": "x"}},
            {"tool": "replace", "arguments": {"file_path": "pipe", "old_string": "a", "new_string": "b"}},
            "done",
        ],
    )
    # every edit failed, so the run says the change was not made (exit 1)
    out = run_cli(git_repo, script, "-p", "go", "--json", "--approval-mode", "yolo", timeout=60)
    steps = tool_steps(out, exit_code=1)
    assert "change_not_made" in out.stderr
    assert len(steps) == 3 and all("FIFO" in (s["error"] or "") for s in steps), [s["error"] for s in steps]
    assert stat.S_ISFIFO(os.stat(git_repo / "pipe").st_mode)  # not replaced by write_file either


def test_huge_single_line_file_is_not_read_whole(workspace, call):
    """read_file of a 64 MiB one-line file stays far below its size in memory."""
    import tracemalloc

    big = workspace / "big.txt"
    with open(big, "wb") as handle:
        handle.writelines(b"y" * (1 << 20) for _ in range(64))
        handle.write(b"\nsecond line\n")
    tracemalloc.start()
    result = call("read_file", file_path="big.txt")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert result.ok and "line shortened" in result.output and "second line" in result.output
    assert peak < 8 << 20, peak
