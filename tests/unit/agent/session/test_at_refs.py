"""``@`` references: files, folders and globs read through the confined read tool; ignored files,
.acode/ and binary files skipped; a size cap that names what it left out; e-mail addresses and ``\\@``
stay text."""

from __future__ import annotations

import json
import os

from tests.helpers.agent_cli import run_cli, write_script
from tests.helpers.repos import make_git_repo

from acode.agent.session.at_refs import expand_at_refs, find_refs
from acode.tools.base import ToolContext


def repo_with_files(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {
        "util.py": "def add(a, b):\n    return a + b\n",
        "src/app.py": "print('app')\n",
        "src/lib/core.py": "CORE = 1\n",
        "src/notes.txt": "notes\n",
        ".gitignore": "build/\n*.log\n",
        "my file.txt": "spaced\n",
    })
    (repo / "build").mkdir()
    (repo / "build" / "out.py").write_text("generated\n")
    (repo / "debug.log").write_text("log line\n")
    (repo / "src" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (repo / ".acode").mkdir()
    (repo / ".acode" / "config.yml").write_text("model: {}\n")
    return repo


def test_references_are_found_but_mail_addresses_and_escapes_are_not():
    assert find_refs("see @a.py and (@b/) but mail dev@example.com, \\@handle") == ["a.py", "b/)"]
    assert find_refs("@my\\ file.txt") == ["my file.txt"]


def test_a_file_a_folder_and_a_glob(tmp_path):
    repo = repo_with_files(tmp_path)
    ctx = ToolContext(workspace=repo)
    one = expand_at_refs("explain @util.py.", ctx)
    assert one.included == ["util.py"]
    assert one.prompt.startswith(
        "explain @util.py.\n\n--- Content from referenced files ---\nContent from @util.py:\n"
    )
    assert "return a + b" in one.prompt and one.prompt.endswith("--- End of content ---")

    folder = expand_at_refs("look at @src/", ctx)
    assert folder.included == ["src/app.py", "src/lib/core.py", "src/notes.txt"]
    assert folder.skipped == ["src/logo.png (binary)"]

    globbed = expand_at_refs("@src/**/*.py and @util.py", ctx)
    assert globbed.included == ["src/app.py", "src/lib/core.py", "util.py"]

    spaced = expand_at_refs("read @my\\ file.txt", ctx)
    assert spaced.included == ["my file.txt"] and "spaced" in spaced.prompt


def test_ignored_files_acode_folder_and_outside_paths_are_left_out(tmp_path):
    repo = repo_with_files(tmp_path)
    (tmp_path / "secret.txt").write_text("outside\n")
    ctx = ToolContext(workspace=repo)
    out = expand_at_refs("@debug.log @build/out.py @.acode/config.yml @../secret.txt @src/logo.png", ctx)
    assert out.included == [] and "--- Content" not in out.prompt
    assert "debug.log (ignored by .gitignore/.acodeignore)" in out.skipped
    assert "build/out.py (ignored by .gitignore/.acodeignore)" in out.skipped
    assert ".acode/config.yml (inside .acode/)" in out.skipped
    assert any(s.startswith("@../secret.txt (") and "outside the workspace" in s for s in out.skipped)
    assert "src/logo.png (binary)" in out.skipped
    assert "outside" not in out.prompt.split("\n", 1)[-1]
    whole = expand_at_refs("@.", ctx)  # the whole workspace: nothing ignored comes in
    assert "build/out.py" not in whole.included and ".acode/config.yml" not in whole.included
    assert "util.py" in whole.included


def test_the_size_cap_names_what_it_left_out(tmp_path):
    repo = repo_with_files(tmp_path)
    (repo / "big.txt").write_text(("y" * 49 + "\n") * 100)  # read_file gives 4,999 characters
    out = expand_at_refs("@util.py @big.txt", ToolContext(workspace=repo), max_total_chars=1000)
    assert out.included == ["util.py"]
    assert out.skipped == ["big.txt (4,999 characters; the 1,000-character cap is reached)"]
    assert "left out: big.txt" in out.notes()[1]


def test_mail_escaped_and_missing_references_stay_text(tmp_path):
    repo = repo_with_files(tmp_path)
    out = expand_at_refs(
        "mail dev@example.com about \\@util.py and @nothing_here.py", ToolContext(workspace=repo)
    )
    assert out.prompt == "mail dev@example.com about @util.py and @nothing_here.py"
    assert out.included == [] and out.skipped == ["@nothing_here.py (no such file or folder; kept as text)"]


def test_one_shot_prompt_gets_the_file_content(tmp_path):
    repo = repo_with_files(tmp_path)
    script = write_script(repo, ["It adds two numbers."])
    out = run_cli(repo, script, "-p", "what does @util.py do?", "--json")
    assert out.returncode == 0, out.stderr
    assert "@ included 1 file(s)" in out.stderr
    from acode.paths import ProjectPaths
    from acode.store.sessions import SessionStore

    store = SessionStore(ProjectPaths(repo).db_file)
    user = next(m for m in store.load_messages(json.loads(out.stdout)["session_id"]) if m.role == "user")
    assert user.content.startswith("what does @util.py do?") and "return a + b" in user.content
    assert os.path.exists(repo / "util.py")


def test_the_chat_completes_at_paths_and_slash_commands(tmp_path):
    from prompt_toolkit.completion import CompleteEvent
    from prompt_toolkit.document import Document

    from acode.cli import slash
    from acode.cli.chat_input import ChatCompleter

    repo = repo_with_files(tmp_path)
    completer = ChatCompleter(repo)

    def complete(text):
        return [c.text for c in completer.get_completions(Document(text), CompleteEvent())]

    assert complete("explain @src/") == [
        "@src/lib/",
        "@src/app.py",
        "@src/lib/core.py",
        "@src/logo.png",
        "@src/notes.txt",
    ]
    assert complete("read @my") == ["@my\\ file.txt"]
    assert complete("@.acode") == [] and complete("@build") == []  # .acode/ and ignored files are not offered
    assert complete("mail dev@exa") == []
    slash.load_modules()
    assert "/memory" in complete("/mem") and complete("hello /mem") == []
