"""read_file, read_file_part and write_file through the dispatcher, including every error path."""

from __future__ import annotations

import json
import os
import pwd
import shutil
import tempfile
from pathlib import Path

import pytest

from acode.llm.types import ToolCall
from acode.tools.base import ToolContext
from acode.tools.builtin import default_registry
from acode.tools.files import MAX_LINE_CHARS, MAX_LINES


def test_read_whole_small_file(workspace, call):
    (workspace / "a.py").write_text("one\ntwo\nthree\n")
    result = call("read_file", file_path="a.py")
    assert result.ok
    assert result.output == "one\ntwo\nthree"


def test_read_range_is_one_based_inclusive_with_notice(workspace, call):
    (workspace / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = call("read_file", file_path="a.txt", start_line=3, end_line=5)
    notice, *body = result.output.split("\n")
    assert body == ["line 3", "line 4", "line 5"]
    assert "lines 3-5 of 10" in notice and "start_line=6" in notice


def test_long_file_is_cut_with_next_start_line(workspace, call):
    (workspace / "big.txt").write_text("".join(f"{i}\n" for i in range(1, MAX_LINES + 501)))
    result = call("read_file", file_path="big.txt")
    lines = result.output.split("\n")
    assert f"lines 1-{MAX_LINES} of {MAX_LINES + 500}" in lines[0]
    assert f"start_line={MAX_LINES + 1}" in lines[0]
    assert lines[1] == "1" and lines[-1] == str(MAX_LINES)
    rest = call("read_file", file_path="big.txt", start_line=MAX_LINES + 1)
    assert rest.output.split("\n")[-1] == str(MAX_LINES + 500)
    assert "To read more" not in rest.output


def test_long_lines_are_shortened(workspace, call):
    (workspace / "wide.txt").write_text("x" * (MAX_LINE_CHARS + 50) + "\nshort\n")
    result = call("read_file", file_path="wide.txt")
    assert "1 line(s) longer than" in result.output
    assert ("x" * MAX_LINE_CHARS + " ... [line shortened]") in result.output
    assert ("x" * (MAX_LINE_CHARS + 1)) not in result.output


def test_crlf_file_reads_without_carriage_returns(workspace, call):
    (workspace / "w.txt").write_bytes(b"a\r\nb\r\n")
    assert call("read_file", file_path="w.txt").output == "a\nb"


def test_empty_file(workspace, call):
    (workspace / "e.txt").write_text("")
    result = call("read_file", file_path="e.txt")
    assert result.ok and "is empty" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"file_path": "missing.py"}, "File not found: missing.py"),
        ({"file_path": "a.txt", "start_line": 9}, "start_line 9 is past the end of the file (3 lines)"),
        ({"file_path": "a.txt", "start_line": 3, "end_line": 2}, "end_line 2 is before start_line 3"),
        ({"file_path": "a.txt", "start_line": 0}, "Invalid arguments for read_file: start_line"),
        ({"file_path": "sub"}, "is a directory"),
        ({"file_path": "blob.bin"}, "binary file"),
        ({"file_path": "../x"}, "outside the workspace"),
        ({"start_line": 1}, "Invalid arguments for read_file: file_path: Field required"),
    ],
)
def test_read_errors_are_structured(workspace, call, args, message):
    (workspace / "a.txt").write_text("1\n2\n3\n")
    (workspace / "sub").mkdir()
    (workspace / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    result = call("read_file", **args)
    assert not result.ok
    assert message in result.error
    assert json.loads(result.for_model()) == {"error": result.error}


def test_read_file_part_numbers_lines(workspace, call):
    (workspace / "m.py").write_text("".join(f"v{i}\n" for i in range(1, 13)))
    result = call("read_file_part", file_path="m.py", start_line=9, end_line=11)
    assert result.data == {
        "file_path": "m.py",
        "content": " 9 | v9\n10 | v10\n11 | v11",
        "start_line": 9,
        "end_line": 11,
        "total_lines": 12,
        "next_start_line": 12,
    }
    whole = call("read_file_part", file_path="m.py").data
    assert whole["end_line"] == 12 and "next_start_line" not in whole


def test_write_creates_parents_and_records_change(workspace, call, ctx):
    result = call("write_file", file_path="pkg/sub/new.py", content="x = 1\n")
    assert result.ok and result.output == "Created pkg/sub/new.py (1 lines)."
    assert (workspace / "pkg/sub/new.py").read_text() == "x = 1\n"
    assert "+x = 1" in result.display
    call("write_file", file_path="pkg/sub/new.py", content="x = 2\n")
    call("write_file", file_path="other.py", content="y\n")
    assert ctx.state["files_changed"] == ["pkg/sub/new.py", "other.py"]


def test_write_keeps_mode_of_existing_file(workspace, call):
    script = workspace / "run.sh"
    script.write_text("#!/bin/sh\necho old\n")
    script.chmod(0o755)
    call("write_file", file_path="run.sh", content="#!/bin/sh\necho new\n")
    assert script.stat().st_mode & 0o777 == 0o755
    fresh = call("write_file", file_path="fresh.txt", content="a")
    assert fresh.ok and (workspace / "fresh.txt").stat().st_mode & 0o044  # readable by others, not 0600


@pytest.mark.parametrize(
    "content",
    [
        "def f():\n    return 1\n\n# ... rest of code unchanged ...\n",
        "class A:\n    // existing code here\n",
        "def g():\n    # rest of the file\n",
        "<div>\n<!-- ... other content remains the same ... -->\n</div>\n",
    ],
)
def test_write_refuses_placeholders(workspace, call, content):
    (workspace / "a.py").write_text("real code\n")
    result = call("write_file", file_path="a.py", content=content)
    assert not result.ok and "placeholder" in result.error
    assert (workspace / "a.py").read_text() == "real code\n"


def test_write_allows_placeholder_text_the_file_already_had(workspace, call):
    (workspace / "doc.md").write_text("Example:\n# ... rest of code unchanged ...\n")
    result = call(
        "write_file", file_path="doc.md", content="Example:\n# ... rest of code unchanged ...\nmore\n"
    )
    assert result.ok


def test_write_into_directory_path_is_an_error(workspace, call):
    (workspace / "d").mkdir()
    assert "is a directory" in call("write_file", file_path="d", content="x").error


def _dispatch_as_unprivileged(ws: Path, name: str, args: dict) -> dict:
    """Tests run as root, who ignores file modes; so the permission checks run in a forked child that
    drops to the 'nobody' user for good (the real situation: a user without access)."""
    nobody = pwd.getpwnam("nobody")
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: never returns into pytest
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(nobody.pw_gid)
            os.setuid(nobody.pw_uid)
            result = default_registry().dispatch(
                ToolCall(name=name, arguments=args), ToolContext(workspace=ws)
            )
            os.write(write_end, result.model_dump_json().encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    return json.loads(payload)


@pytest.fixture
def open_workspace():
    """A workspace the unprivileged user can reach (pytest's tmp_path is private to root)."""
    base = Path(tempfile.mkdtemp(prefix="acode-perm-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="covered by test_permission_denied_direct as a normal user")
def test_permission_denied_is_a_structured_error(open_workspace):
    locked = open_workspace / "locked.txt"
    locked.write_text("secret\n")
    locked.chmod(0o000)
    read = _dispatch_as_unprivileged(open_workspace, "read_file", {"file_path": "locked.txt"})
    assert read["error"].startswith("Permission denied")
    write = _dispatch_as_unprivileged(open_workspace, "write_file", {"file_path": "new.txt", "content": "x"})
    assert write["error"].startswith("Permission denied")
    assert not (open_workspace / "new.txt").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file modes; see the unprivileged-child test")
def test_permission_denied_direct(workspace, call):
    locked = workspace / "locked.txt"
    locked.write_text("secret\n")
    locked.chmod(0o000)
    assert call("read_file", file_path="locked.txt").error.startswith("Permission denied")
