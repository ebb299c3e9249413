"""grep_search and search_in_files: every engine forced in turn gives identical rows on one fixture
tree; errors, limits, timeouts and the git-failure fallback."""

from __future__ import annotations

import os

import pytest
from tests.helpers.repos import make_git_repo

from acode.llm.types import ToolCall
from acode.tools.base import ToolContext, ToolRegistry
from acode.tools.search import GrepSearch, SearchInFiles
from acode.tools.search_engines import find_matches

FIXTURE = {
    ".gitignore": "*.log\ngenerated/\n",
    ".acodeignore": "vendor/\n",
    "README.md": "# Demo\nTODO: write docs\nHello World\n",
    "src/app.py": "import os\n\n\ndef main():\n    # TODO: handle errors\n    print('hello')\n    return "
    "os.getcwd()\n",
    "src/util.py": "def helper(x):\n    return x * 2\n\n\ndef other():\n    pass  # FIXME later\n",
    "src/deep/nested.py": "class Thing:\n    def method(self):\n        return 'TODO'\n",
    "src/unicode.txt": "naïve café\nÜber straße x\ntodo ünïcödé\n٣ digit\nab\n",
    "src/win.txt": "line one\r\nfoo\r\nfoo bar\r\n",
    "src/no_newline.txt": "first\nlast todo",
    "src/long.txt": "x" * 3000 + " TODO\n",
    "docs/guide.md": "Hello\nhello again\nHELLO loudly\n",
    "vendor/lib.py": "def vendored(): TODO\n",
    "app.log": "TODO in a log\n",
    "generated/out.py": "def generated(): TODO\n",
}

PATTERNS = [
    ("TODO", False, None),
    ("TODO", True, None),
    (r"def \w+\(", True, "*.py"),
    ("^def", True, None),
    ("foo$", True, None),
    ("hello", False, "*.md"),
    (r"caf|stra", False, None),
    (r"return (os|x)", True, "src/*.py"),
    ("^$", True, None),
    ("nothing-matches-this", False, None),
    (r"(?<=print\()'hello'", True, None),
    ("o", False, None),
    (r"caf\w", False, None),
    (r"stra\w+e", True, None),
    (r"\d", True, "*.txt"),
    (r"\bx\b", False, None),
    ("caf.$", True, None),
    ("(?i)über", True, None),
    ("ab{,3}", True, None),
    (r"[\w]+ digit", True, None),
]


@pytest.fixture
def repo(tmp_path):
    root = make_git_repo(tmp_path / "repo", dict(list(FIXTURE.items())[:6]))
    for name, text in list(FIXTURE.items())[6:]:  # the rest stays untracked (ignored or not)
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, newline="")
    (root / "src" / "blob.bin").write_bytes(b"TODO\x00\x01binary TODO\n")
    os.symlink(tmp_path / "outside.txt", root / "src" / "escape.txt")
    (tmp_path / "outside.txt").write_text("TODO outside the workspace\n")
    return root


def _rows(tool, repo, **args):
    registry = ToolRegistry([tool])
    result = registry.dispatch(ToolCall(name=tool.name, arguments=args), ToolContext(workspace=repo))
    assert result.ok, result.error
    return result.data if result.data is not None else result.output


@pytest.mark.parametrize(("pattern", "case_sensitive", "file_pattern"), PATTERNS)
def test_every_engine_gives_identical_rows(repo, pattern, case_sensitive, file_pattern):
    args = {"pattern": pattern, "case_sensitive": case_sensitive, "max_results": 30}
    if file_pattern:
        args["file_pattern"] = file_pattern
    by_engine = {
        engine: _rows(SearchInFiles(engine=engine), repo, **args) for engine in ("git", "python", "auto")
    }
    assert by_engine["git"] == by_engine["python"] == by_engine["auto"]
    grep_args = {"pattern": pattern, "case_sensitive": case_sensitive, "max_matches": 30}
    if file_pattern:
        grep_args["include_pattern"] = file_pattern
    texts = {engine: _rows(GrepSearch(engine=engine), repo, **grep_args) for engine in ("git", "python")}
    assert texts["git"] == texts["python"]


def test_engines_really_ran(repo):
    files = ["README.md", "src/app.py"]
    assert find_matches(repo, files, "TODO", engine="auto").engine == "git"
    assert find_matches(repo, files, "TODO", engine="python").engine == "python"
    widened = find_matches(repo, ["src/unicode.txt"], r"caf\w", engine="git")
    assert widened.engine == "git" and [m.line_number for m in widened.matches] == [1]
    assert find_matches(repo, files, "ab{,3}", engine="git").engine == "python"  # no safe PCRE rewrite


def test_rows_content_ignores_and_binary(repo):
    data = _rows(SearchInFiles(), repo, pattern="todo", context_lines=1)
    paths = {row["file_path"] for row in data["matches"]}
    assert paths == {
        "README.md",
        "src/app.py",
        "src/deep/nested.py",
        "src/unicode.txt",
        "src/no_newline.txt",
        "src/long.txt",
    }
    app = next(row for row in data["matches"] if row["file_path"] == "src/app.py")
    assert app == {
        "file_path": "src/app.py",
        "line_number": 5,
        "line_content": "    # TODO: handle errors",
        "match_context": " 4 | def main():\n>5 |     # TODO: handle errors\n 6 |     print('hello')",
    }
    long_row = next(row for row in data["matches"] if row["file_path"] == "src/long.txt")
    assert long_row["line_content"].endswith(" ...") and len(long_row["line_content"]) < 600


def test_crlf_lines_have_no_carriage_return(repo):
    rows = _rows(SearchInFiles(), repo, pattern="^foo", case_sensitive=True)["matches"]
    assert [(r["line_number"], r["line_content"]) for r in rows] == [(2, "foo"), (3, "foo bar")]


def test_limit_and_truncation_flag_agree(repo):
    for engine in ("git", "python"):
        data = _rows(SearchInFiles(engine=engine), repo, pattern="o", max_results=3)
        assert len(data["matches"]) == 3 and data["truncated"] is True
    text = _rows(GrepSearch(), repo, pattern="o", max_matches=2)
    assert "[Stopped at 2 matches" in text


def test_grep_search_text_and_dir(repo):
    text = _rows(GrepSearch(), repo, pattern="def", dir_path="src/deep", case_sensitive=True)
    assert text.splitlines() == [
        "Found 1 match(es) for /def/ in src/deep:",
        "--- src/deep/nested.py ---",
        "2:     def method(self):",
    ]
    assert _rows(GrepSearch(), repo, pattern="zzz") == "No matches for /zzz/ in .."


def test_plain_folder_without_git_uses_python(tmp_path):
    (tmp_path / "a.txt").write_text("needle\n")
    outcome = find_matches(tmp_path, ["a.txt"], "needle")
    assert outcome.engine == "python" and [m.line_number for m in outcome.matches] == [1]


def _break_git(repo):
    """A worktree whose .git points nowhere: every git command in it fails."""
    git_dir = repo / ".git"
    git_dir.rename(repo.parent / "moved-git-dir")
    git_dir.write_text("gitdir: /nonexistent/git/dir\n")


def test_git_failure_falls_back_with_same_rows(repo, caplog):
    before = _rows(SearchInFiles(), repo, pattern="TODO")
    (repo / ".gitignore").write_text("*.log\ngenerated/\n")
    _break_git(repo)
    after = _rows(SearchInFiles(), repo, pattern="TODO")
    assert "falling back to the built-in search" in caplog.text
    assert "git ls-files failed" in caplog.text
    assert after == before


def test_forced_git_engine_failure_is_a_tool_error(repo):
    _break_git(repo)
    registry = ToolRegistry([SearchInFiles(engine="git")])
    result = registry.dispatch(
        ToolCall(name="search_in_files", arguments={"pattern": "x"}), ToolContext(workspace=repo)
    )
    assert "Search with git grep failed" in result.error


@pytest.mark.parametrize("engine", ["git", "python"])
def test_bad_regex_is_a_tool_error(repo, engine):
    registry = ToolRegistry([SearchInFiles(engine=engine), GrepSearch(engine=engine)])
    for name in ("search_in_files", "grep_search"):
        result = registry.dispatch(
            ToolCall(name=name, arguments={"pattern": "(unclosed"}), ToolContext(workspace=repo)
        )
        assert "Invalid regular expression '(unclosed'" in result.error


def test_timeout_is_a_tool_error(repo):
    registry = ToolRegistry([SearchInFiles(engine="python", timeout=0.0)])
    result = registry.dispatch(
        ToolCall(name="search_in_files", arguments={"pattern": "x"}), ToolContext(workspace=repo)
    )
    assert "Search timed out after 0s" in result.error


def test_search_argument_errors(repo, call, ctx):
    ctx.workspace = repo
    assert "pattern: Field required" in call("search_in_files").error
    assert (
        "max_results: Input should be greater than or equal to 1"
        in call("search_in_files", pattern="x", max_results=0).error
    )
    assert "Directory not found" in call("grep_search", pattern="x", dir_path="nope").error
    assert "outside the workspace" in call("grep_search", pattern="x", dir_path="..").error
    assert "pattern is empty" in call("grep_search", pattern="").error
