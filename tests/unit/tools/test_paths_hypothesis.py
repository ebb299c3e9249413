"""Property: whatever path argument is generated, confinement either refuses it with a ToolError or
returns a path whose real location is inside the workspace — symlink tricks included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acode.llm.types import ToolCall
from acode.tools.base import ToolContext, ToolError
from acode.tools.builtin import default_registry
from acode.tools.paths import resolve_path


def _build_world(base: Path) -> tuple[Path, Path]:
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    ws = base / "ws"
    (ws / "src" / "deep").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("print('a')\n")
    (ws / "link_out").symlink_to(outside)  # directory symlink leading out
    (ws / "link_abs").symlink_to("/etc")
    (ws / "src" / "up").symlink_to("..")  # stays inside
    (ws / "src" / "deep" / "upup").symlink_to("../../..")  # leads to base, outside
    (ws / "link_in").symlink_to("src")
    (ws / "dangling_out").symlink_to("../outside/not-there.txt")
    (ws / "secret_link").symlink_to(outside / "secret.txt")
    (ws / "loop").symlink_to("loop")
    return ws, outside


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return _build_world(tmp_path_factory.mktemp("confine"))


COMPONENTS = [
    "..",
    ".",
    "",
    "src",
    "deep",
    "a.py",
    "up",
    "upup",
    "link_out",
    "link_abs",
    "link_in",
    "dangling_out",
    "secret_link",
    "loop",
    "outside",
    "secret.txt",
    "etc",
    "passwd",
    "ws",
    "~",
    "new.txt",
]


def path_arguments(ws: Path, outside: Path):
    relative = st.lists(st.sampled_from(COMPONENTS), min_size=1, max_size=8).map("/".join)
    prefixes = st.sampled_from(["", "/", f"{ws}/", f"{outside}/", f"{ws.parent}/", "./", "../"])
    mixed = st.tuples(prefixes, relative).map("".join)
    return st.one_of(mixed, st.text(min_size=1, max_size=30))


def _inside(real: str, root: str) -> bool:
    return real == root or real.startswith(root + os.sep)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_path_argument_resolves_outside(world, data):
    ws, outside = world
    raw = data.draw(path_arguments(ws, outside))
    ctx = ToolContext(workspace=ws)
    try:
        resolved = resolve_path(ctx, raw)
    except ToolError as exc:
        assert str(exc)  # refused, with a message
        return
    root = os.path.realpath(ws)
    assert _inside(os.path.realpath(resolved), root), (raw, resolved)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_writes_through_tools_never_land_outside(world, data):
    ws, outside = world
    raw = data.draw(path_arguments(ws, outside))
    before = sorted(p.name for p in outside.iterdir())
    ctx = ToolContext(workspace=ws)
    registry = default_registry()
    for call in (
        ToolCall(name="write_file", arguments={"file_path": raw, "content": "x\n"}),
        ToolCall(name="replace", arguments={"file_path": raw, "old_string": "", "new_string": "y\n"}),
    ):
        registry.dispatch(call, ctx)
    assert sorted(p.name for p in outside.iterdir()) == before
    assert (outside / "secret.txt").read_text() == "secret\n"


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("../outside/secret.txt", "outside the workspace"),
        ("src/../../outside/secret.txt", "outside the workspace"),
        ("link_out/secret.txt", "symlink"),
        ("secret_link", "symlink"),
        ("dangling_out", "symlink"),
        ("src/deep/upup/outside/secret.txt", "symlink"),
        ("/etc/passwd", "outside the workspace"),
        ("", "empty"),
        ("a\x00b", "NUL"),
    ],
)
def test_escapes_are_refused_with_a_clear_message(world, raw, words):
    ws, _ = world
    with pytest.raises(ToolError, match=words):
        resolve_path(ToolContext(workspace=ws), raw)


def test_inside_paths_resolve(world):
    ws, _ = world
    ctx = ToolContext(workspace=ws)
    root = Path(os.path.realpath(ws))
    assert resolve_path(ctx, "src/a.py") == root / "src" / "a.py"
    assert resolve_path(ctx, "src/up/src/a.py") == root / "src" / "a.py"
    assert resolve_path(ctx, "link_in/a.py") == root / "src" / "a.py"
    assert resolve_path(ctx, str(ws / "src" / "a.py")) == root / "src" / "a.py"
    assert resolve_path(ctx, "src/../new/file.txt") == root / "new" / "file.txt"


def test_extra_writable_file_outside_is_allowed_only_itself(world):
    ws, outside = world
    plan = outside / "plan.md"
    ctx = ToolContext(workspace=ws, extra_writable=(plan,))
    assert resolve_path(ctx, str(plan)) == Path(os.path.realpath(plan))
    with pytest.raises(ToolError):
        resolve_path(ctx, str(outside / "secret.txt"))
