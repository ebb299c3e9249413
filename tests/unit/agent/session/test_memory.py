"""Memory: facts added to the global ACODE.md, @import in context files (cycle-safe, confined,
depth-limited), and the hierarchy of places acode reads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.repos import make_git_repo

from acode.agent.session.context_files import find_context_files
from acode.agent.session.memory import MAX_IMPORT_DEPTH, MEMORY_SECTION, add_memory, expand_imports, hierarchy


def test_add_memory_creates_and_extends_one_section(tmp_path):
    target = tmp_path / "ACODE.md"
    add_memory("use   pytest -q", target)
    assert target.read_text() == f"{MEMORY_SECTION}\n\n- use pytest -q\n"
    target.write_text("# Mine\n\nbe brief\n\n" + target.read_text() + "\n## Other\n\nkeep\n")
    add_memory("tabs are forbidden", target)
    text = target.read_text()
    assert text.index("- use pytest -q") < text.index("- tabs are forbidden") < text.index("## Other")
    assert text.startswith("# Mine\n\nbe brief") and text.rstrip().endswith("keep")


def test_imports_are_expanded_confined_and_cycle_safe(tmp_path):
    root = tmp_path / "proj"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "style.md").write_text("Style: short names.\n@import ../ACODE.md\n@./deeper.md")
    (root / "docs" / "deeper.md").write_text("Deeper rule.")
    (tmp_path / "secret.md").write_text("SECRET")
    os.symlink(tmp_path / "secret.md", root / "link.md")
    top = root / "ACODE.md"
    top.write_text(
        "Top.\n@import docs/style.md\n@import ../secret.md\n@import link.md\n```\n@import "
        "docs/style.md\n```\n"
        "@import missing.md\nmail dev@example.com"
    )
    text = expand_imports(top.read_text(), top)
    assert "Style: short names." in text and "Deeper rule." in text
    assert "already being included (an import cycle)" in text  # style.md imports ACODE.md back
    assert "SECRET" not in text and text.count("skipped: outside") == 2  # ../ and the symlink
    assert "```\n@import docs/style.md\n```" in text  # fenced lines are left alone
    assert "[@import missing.md skipped: no such file]" in text and "mail dev@example.com" in text


def test_imports_stop_at_the_depth_limit(tmp_path):
    for n in range(MAX_IMPORT_DEPTH + 2):
        (tmp_path / f"f{n}.md").write_text(f"level {n}\n@import f{n + 1}.md")
    text = expand_imports((tmp_path / "f0.md").read_text(), tmp_path / "f0.md")
    assert f"level {MAX_IMPORT_DEPTH}" in text and f"level {MAX_IMPORT_DEPTH + 1}" not in text
    assert f"nest deeper than {MAX_IMPORT_DEPTH} levels" in text


def test_context_files_follow_the_working_folder_and_list_sub_folders(tmp_path):
    repo = make_git_repo(
        tmp_path / "repo",
        {
            "ACODE.md": "root rules\n@import docs/extra.md",
            "docs/extra.md": "extra rules",
            "pkg/ACODE.md": "pkg rules",
            "pkg/sub/AGENTS.md": "sub rules",
            "other/ACODE.md": "other rules",
        },
    )
    user = tmp_path / "user"
    user.mkdir()
    add_memory("remember me", user / "ACODE.md")
    files = find_context_files(repo, user_dir=user, cwd=repo / "pkg" / "sub")
    assert [f.label for f in files] == [
        "your user settings (~/.config/acode/ACODE.md)",
        "ACODE.md",
        "pkg/ACODE.md",
        "pkg/sub/AGENTS.md",
    ]
    assert "extra rules" in files[1].text and "remember me" in files[0].text
    places = hierarchy(repo, ("ACODE.md", "AGENTS.md"), cwd=repo / "pkg", user_file=user / "ACODE.md")
    found = {(p.scope, p.path.relative_to(tmp_path).as_posix(), p.loaded) for p in places if p.exists}
    assert found == {
        ("global", "user/ACODE.md", True),
        ("project", "repo/ACODE.md", True),
        ("working folder", "repo/pkg/ACODE.md", True),
        ("sub-folder", "repo/pkg/sub/AGENTS.md", False),
        ("sub-folder", "repo/other/ACODE.md", False),
    }


def test_acode_memory_add_writes_the_global_file(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    out = subprocess.run(
        [sys.executable, "-m", "acode", "memory", "add", "prefer small functions"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    user_file = os.path.join(os.environ["ACODE_CONFIG_HOME"], "ACODE.md")
    assert Path(user_file).read_text().endswith("- prefer small functions\n")
    listed = subprocess.run(
        [sys.executable, "-m", "acode", "memory", "list"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "global" in listed.stdout and "(loaded)" in listed.stdout
