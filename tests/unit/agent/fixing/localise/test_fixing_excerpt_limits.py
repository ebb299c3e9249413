"""A file of a real project is never sent whole when it is long in characters, and a long file found by
its name alone is excerpted around what is named like the failing tests (issue 29, real projects: a
395-398-line file was just under the 400-line limit and was sent whole, 12,400-15,400 characters, and the
1.5B took 13 minutes on such a prompt at load 10; a file nothing failing reached went to the tool loop).
The scripted model and the real tools on a real pytest project."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.helpers.fixing_project import project_files, reply, send
from tests.helpers.repos import make_git_repo

from acode.agent.fixing.localise.excerpt import excerpt
from acode.agent.fixing.localise.locate import Focus
from acode.llm.scripted import ScriptedModel

TOTAL = '''def total(rows):
    """The sum of the rows."""
    return sum(rows) - 1
'''
TOTAL_FIXED = TOTAL.replace("sum(rows) - 1", "sum(rows)")
SAVE = '''def save_session(headers, accessed):
    """The response headers: a session that was read varies by its cookie."""
    if accessed:
        headers["Vary"] = "Accept"
    return headers
'''
SAVE_FIXED = SAVE.replace('"Accept"', '"Cookie"')
LOAD = '''def load_session(cookie):
    """The session a cookie holds."""
    return dict(item.split("=") for item in cookie.split(";") if item)
'''


def _helpers(count: int, doc_lines: int) -> str:
    doc = "".join(f"    Line {j} of a long explanation of what this helper is for and when.\n"
                  for j in range(doc_lines))
    return "".join(f'def helper_{i}(x):\n    """Helper {i}.\n\n{doc}    """\n    return x + {i}\n\n\n'
                   for i in range(count))


def report_module() -> str:
    """A 370-line module (under excerpt_file_lines) of about 17,000 characters."""
    return '"""Reports."""\n\nimport math\n\n\n' + _helpers(14, 14) + TOTAL + "\n\n" + _helpers(3, 14)


def sessions_module() -> str:
    """A module of more than 400 lines the failing test never imports: it uses a conftest fixture."""
    return ('"""Sessions."""\n\nimport json\n\n\n' + _helpers(30, 8) + LOAD + "\n\n" + SAVE + "\n\n"
            + _helpers(10, 8))


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    files = {
        **project_files(),
        "src/tool/report.py": report_module(),
        "src/tool/sessions.py": sessions_module(),
        "tests/test_report.py": "from tool.report import total\n\n\ndef test_total():\n"
                                "    assert total([1, 2]) == 3\n",
        "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef app():\n"
                             "    from tool import sessions\n    return sessions\n",
        "tests/test_app.py": "def test_session_vary_cookie(app):\n"
                             "    assert app.save_session({}, accessed=True)['Vary'] == 'Cookie'\n",
    }
    return make_git_repo(tmp_path / "repo", files)


@pytest.mark.slow
def test_a_file_under_the_line_limit_but_long_in_characters_is_shown_as_an_excerpt(project):
    source = report_module()
    assert len(source.splitlines()) < 400 and len(source) > 15000
    model = ScriptedModel([reply("src/tool/report.py", TOTAL_FIXED)])
    result = send(project, model, "tests/test_report.py::test_total fails; fix the bug (not the tests)")
    assert result.ok, result.message
    prompt = model.calls[0]["messages"][0].content
    assert TOTAL in prompt and "import math" in prompt and "return x + 7\n" not in prompt
    assert len(prompt) < 6000
    # only the function shown was asked for and merged: the rest of the file byte for byte
    assert (project / "src/tool/report.py").read_text() == source.replace(TOTAL, TOTAL_FIXED)
    assert not [t for t in result.tool_steps() if t.name not in ("write_file", "run_shell_command")]


@pytest.mark.slow
def test_a_long_file_found_by_its_name_is_excerpted_around_what_is_named_like_the_test(project):
    source = sessions_module()
    assert len(source.splitlines()) > 400
    model = ScriptedModel([reply("src/tool/sessions.py", SAVE_FIXED)])
    result = send(project, model, "tests/test_app.py::test_session_vary_cookie fails; fix the bug")
    assert result.ok, result.message
    prompt = model.calls[0]["messages"][0].content
    # no frame in sessions.py and no import of it: shown are its definitions named like the test
    assert SAVE in prompt and LOAD in prompt and "return x + 7\n" not in prompt
    assert (project / "src/tool/sessions.py").read_text() == source.replace(SAVE, SAVE_FIXED)
    # never the tool loop: every step is the fixer's write or test run
    assert {t.name for t in result.tool_steps()} == {"write_file", "run_shell_command"}


def test_the_definitions_named_like_the_tests_include_a_long_class_s_methods():
    from acode.agent.fixing.localise.locate import focus_named_like

    source = ("class Interface:\n" + "".join(f"    def get_{i}(self):\n        return {i}\n\n"
                                             for i in range(60))
              + "    def save_session(self, app):\n        return app\n\n\n"
              + _helpers(40, 2) + "class Unrelated:\n    pass\n")
    focus = focus_named_like(source, [{"session", "vary", "cookie"}])
    assert focus.names == {"Interface"} and focus.attributes == {"save_session"}
    shown = excerpt(source, "sessions.py", focus)
    assert "    def save_session(self, app):" in shown and "return 7\n" not in shown


def test_an_excerpt_stops_adding_definitions_at_its_character_limit():
    helpers = _helpers(40, 14)
    names = {f"helper_{i}" for i in range(40)}
    shown = excerpt(helpers, "many.py", Focus(names=names), max_chars=3000)
    assert shown is not None and "def helper_0(x):" in shown
    assert len(shown) < 3000 + 2500 and "def helper_39(x):" not in shown
    # the first definition is always shown, however long
    alone = excerpt(helpers, "many.py", Focus(names={"helper_5"}), max_chars=10)
    assert "def helper_5(x):" in alone and "def helper_6(x):" not in alone


SHOUT = '''def shout(s):
    """The text in capitals."""
    return s.lower()
'''


@pytest.mark.slow
def test_a_file_under_the_line_limit_with_nothing_to_excerpt_around_is_shown_whole(tmp_path, monkeypatch):
    # sqlparse 0.5.1->0.5.2 (report half): formatter.py, 204 lines and 7,804 characters, found by its name
    # with nothing named like the test, was dropped by the character limit and the request went to the tool
    # loop; under the line limit it is shown whole, as before the limit
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    source = '"""Formatting."""\n\n\n' + _helpers(24, 3) + SHOUT
    assert len(source.splitlines()) < 400 and len(source) > 6000
    files = {**project_files(), "src/tool/formatter.py": source,
             "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef fmt():\n"
                                  "    from tool import formatter\n    return formatter\n",
             "tests/test_formatter.py": ("def test_formatter_capitals(fmt):\n"
                                         "    assert fmt.shout('a') == 'A'\n")}
    project = make_git_repo(tmp_path / "repo", files)
    fixed = source.replace("s.lower()", "s.upper()")
    model = ScriptedModel([reply("src/tool/formatter.py", fixed)])
    # (without the test spectrum: what the test executed, shout(), would be something to excerpt around)
    result = send(project, model, "tests/test_formatter.py::test_formatter_capitals fails; fix the bug",
                  spectrum=False)
    assert result.ok, result.message
    assert source in model.calls[0]["messages"][0].content
    assert (project / "src/tool/formatter.py").read_text() == fixed
    assert {t.name for t in result.tool_steps()} == {"write_file", "run_shell_command"}
