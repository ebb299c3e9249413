"""The test-driven fixer on a project's shape (issue 29, real projects): only the named tests run, the
module is found through the package's imports and the traceback, and a file over 400 lines is fixed
from an excerpt, with the scripted model and the real tools on a real pytest project."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.helpers.fixing_project import (
    CLI,
    CLI_FIXED,
    MEAN,
    MEAN_FIXED,
    PACKAGE_INIT,
    TEST_BIG,
    TEST_CLI,
    big_module,
    fixing_repo,
    reply,
    send,
    traced,
)

from acode.agent.fixing.detect import plan_fix
from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.rewrite import parse_reply
from acode.llm.scripted import ScriptedModel


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    return fixing_repo(tmp_path, monkeypatch)


# -- 1. run only the named tests -----------------------------------------------------------------
def test_node_ids_and_test_files_are_read_from_the_request(project):
    from acode.agent.fixing.detect import keyword_expression, named_tests, named_tests_command

    request = (
        "tests/test_cli.py::test_parse_args and test_big.py::TestMean::test_one[2-3] fail, "
        "and so does tests/test_other.py; see src/tool/cli.py"
    )
    assert named_tests(request, project) == [
        "tests/test_cli.py::test_parse_args",
        "tests/test_big.py::TestMean::test_one[2-3]",
        "tests/test_other.py",
    ]
    assert keyword_expression('run pytest -k "parse and not slow" to see it') == "parse and not slow"
    assert keyword_expression("the -k parse_args tests fail") == "parse_args"
    assert keyword_expression("make it work") is None
    assert named_tests_command(["tests/test_x.py::test_y[a b]"], "not slow") == (
        "python -m pytest -q 'tests/test_x.py::test_y[a b]' -k 'not slow'"
    )
    plan = plan_fix(request, project)
    assert plan.test_command == (
        "python -m pytest -q tests/test_cli.py::test_parse_args 'tests/test_big.py::TestMean::test_one[2-3]' "
        "tests/test_other.py"
    )
    protected = ["tests/test_cli.py", "tests/test_big.py", "tests/test_other.py"]
    assert [p.as_posix() for p in plan.protected] == protected
    # a command the request states is run as stated
    stated = plan_fix("tests/test_cli.py::test_parse_args fails (run them with: pytest -x)", project)
    assert stated.test_command == "pytest -x"


def test_a_named_failing_test_runs_alone_and_its_module_is_found_through_the_package(project):
    model = ScriptedModel([reply("src/tool/cli.py", CLI_FIXED)])
    request = "tests/test_cli.py::test_parse_args fails; fix the bug (do not change the tests)"
    result = send(project, model, request)
    assert result.ok, result.message
    commands = [t.arguments["command"] for t in result.tool_steps() if t.name == "run_shell_command"]
    # the named test, and its file whole (before any edit, and for the candidate that passes: the fix
    # must not break test_name); tests/test_other.py fails and is no part of the request
    its_file = "python -m pytest -q tests/test_cli.py"
    named = its_file + "::test_parse_args"
    assert traced(its_file).fullmatch(commands[1])  # recording what each test executes (spectrum.py)
    assert [commands[0], *commands[2:]] == [named, named, its_file]
    assert "2 passed" in result.tool_steps()[-1].output
    # `from tool import parse_args` is re-exported by tool/__init__.py from tool/cli.py
    prompt = model.calls[0]["messages"][0].content
    assert "src/tool/cli.py\n```python\n" + CLI in prompt and "src/tool/__init__.py\n```" not in prompt
    assert (project / "src/tool/cli.py").read_text() == CLI_FIXED
    assert (project / "tests/test_cli.py").read_text() == TEST_CLI


def test_a_name_the_package_re_exports_is_fixed_where_it_is_defined(project):
    model = ScriptedModel([reply("src/tool/cli.py", CLI_FIXED)])
    request = "tests/test_cli.py fails (run it with: python -m pytest -q tests/test_cli.py); fix the bug"
    result = send(project, model, request)
    assert result.ok, result.message
    # the test says `from tool import parse_args`; tool/__init__.py only re-exports it from .cli
    assert (project / "src/tool/cli.py").read_text() == CLI_FIXED
    assert (project / "src/tool/__init__.py").read_text() == PACKAGE_INIT


def test_the_module_the_traceback_goes_through_comes_first(project):
    from acode.agent.fixing.localise.locate import locate

    (project / "src/tool/config.py").write_text(
        'DEFAULTS = {"verbose": False, "name": "tool"}\n\n\ndef option(name):\n    return DEFAULTS[name]\n'
    )
    output = (
        "F\n    def test_parse_args():\n>       parse_args(['-v'])\n\ntests/test_cli.py:5: \n"
        "_ _ _\nsrc/tool/cli.py:11: in parse_args\n    option('verbos')\n"
        "_ _ _\nsrc/tool/config.py:5: KeyError\nFAILED tests/test_cli.py::test_parse_args - KeyError\n"
    )
    located = locate(output, {Path("tests/test_cli.py"): {"test_parse_args"}}, project)
    # in the traceback and defining a name the test uses; then the rest of the traceback
    assert [f.path.as_posix() for f in located] == ["src/tool/cli.py", "src/tool/config.py"]
    assert located[0].focus.names == {"parse_args"} and located[0].focus.lines == {11}


def test_a_test_that_gets_its_subject_from_a_fixture_points_at_the_test_files_imports(project):
    from acode.agent.fixing.localise.locate import locate

    (project / "tests/test_fixture.py").write_text(
        "import pytest\n\nfrom tool.cli import parse_args\nfrom tool import mod_2\n\n\n@pytest.fixture\n"
        "def options():\n    return parse_args(['-v'])\n\n\ndef test_verbose(options):\n"
        "    assert options['verbose'] is True\n"
    )
    located = locate("", {Path("tests/test_fixture.py"): {"test_verbose"}}, project)
    assert [f.path.as_posix() for f in located] == ["src/tool/cli.py", "src/tool/mod_2.py"]


def test_the_module_the_failing_statement_uses_is_chosen_over_what_the_test_only_patches(project):
    from acode.agent.fixing.detect import FixPlan
    from acode.agent.fixing.localise.targets import choose_targets
    from acode.agent.fixing.outcome import TestOutcome

    # seen on acode's own history (139 modules): the test patched one module, built a value with a
    # second and asserted on a third; all three whole made a 21,000-character prompt
    (project / "tests/test_patch.py").write_text(
        "from tool import mod_2, mod_5, parse_args\n\n\ndef test_patched(monkeypatch):\n"
        "    monkeypatch.setattr(mod_2, 'value', lambda: 0)\n    start = mod_5.value()\n"
        "    assert parse_args(['-v'])['verbose'] is True, start\n"
    )
    output = (
        "tests/test_patch.py:7: AssertionError\nFAILED tests/test_patch.py::test_patched - AssertionError\n"
        "1 failed\n[exit code: 1]"
    )
    plan = FixPlan("pytest", [], [Path("tests/test_patch.py")], ["tests/test_patch.py::test_patched"])
    chosen = choose_targets(plan, TestOutcome(output, 1), project, max_lines=4000, excerpt_lines=400)
    assert [t.whole.path for t in chosen] == ["src/tool/cli.py"]


def test_without_a_traceback_into_the_project_the_module_named_like_the_failing_tests_is_chosen(project):
    """flask 2.3.1->2.3.2 (real-project benchmark, tune half): `test_session_vary_cookie` asserts on a
    response the app fixture built; no frame in flask, and the names it imports point at globals.py.
    The fix is in sessions.py."""
    from acode.agent.fixing.detect import FixPlan
    from acode.agent.fixing.localise.targets import choose_targets
    from acode.agent.fixing.outcome import TestOutcome

    (project / "src/tool/sessions.py").write_text("def vary(headers):\n    return headers\n")
    (project / "tests/test_app.py").write_text(
        "from tool import parse_args\n\n\ndef test_session_vary_cookie():\n    options = parse_args([])\n"
        "    assert options.get('vary') == 'Cookie'\n"
    )
    output = ("tests/test_app.py:6: in test_session_vary_cookie\n    assert options.get('vary') == 'Cookie'\n"
              "E   AssertionError\nFAILED tests/test_app.py::test_session_vary_cookie - AssertionError\n"
              "1 failed\n[exit code: 1]")
    plan = FixPlan("pytest", [], [], ["tests/test_app.py::test_session_vary_cookie"])
    chosen = choose_targets(plan, TestOutcome(output, 1), project, max_lines=4000, excerpt_lines=400)
    assert [t.whole.path for t in chosen] == ["src/tool/sessions.py"]


def test_test_names_and_module_names_match_as_words_not_as_letters():
    from acode.agent.fixing.localise.locate import _same_word, _words

    assert _words("TestHTMLBlocks") == {"html", "blocks"} and _words("test_split_begin") == {"split", "begin"}
    for test_word, module_word in [("session", "sessions"), ("groups", "grouping"), ("split", "splitter"),
                                   ("html", "htmlparser"), ("formatted", "formatter"),
                                   ("configuration", "config")]:
        assert _same_word(test_word, module_word)
    for test_word, module_word in [("value", "validate"), ("large", "lexer"), ("settings", "setup")]:
        assert not _same_word(test_word, module_word)


# -- 3. a long file without the tool loop --------------------------------------------------------
def test_a_600_line_module_shows_only_the_failing_function_and_is_merged(project):
    original = big_module()
    model = ScriptedModel([reply("src/tool/big.py", MEAN_FIXED)])
    result = send(project, model, "tests/test_big.py::test_mean fails; fix the bug (do not change the tests)")
    assert result.ok, result.message
    prompt = model.calls[0]["messages"][0].content
    assert MEAN in prompt and "import math" in prompt and "# 119 other definitions, not shown" in prompt
    assert "return x + 3\n" not in prompt and len(prompt) < len(original) // 3
    assert "leave out the ones you do not change" in prompt
    assert (project / "src/tool/big.py").read_text() == original.replace(MEAN, MEAN_FIXED)
    assert (project / "tests/test_big.py").read_text() == TEST_BIG


def test_an_echoed_excerpt_is_no_candidate_and_never_replaces_the_file():
    from acode.agent.fixing.localise.excerpt import excerpt
    from acode.agent.fixing.localise.locate import Focus

    original = big_module()
    shown = excerpt(original, "big.py", Focus(names={"mean"}))
    whole = FileView("big.py", original, shown_part=shown)
    assert "unchanged" in parse_reply(reply("big.py", shown), [whole])
    # every definition the excerpt shows, changed: merged into the file, the rest kept
    merged = parse_reply(reply("big.py", shown.replace(MEAN, MEAN_FIXED)), [whole])
    assert merged == {"big.py": original.replace(MEAN, MEAN_FIXED)}
    # seen with the 0.5B: the fix written under the name of a function the prompt only listed; a
    # definition it did not show is never rewritten blind (here that leaves the file unchanged)
    blind = MEAN_FIXED.replace("def mean(values)", "def offset_3(values)")
    assert "unchanged" in parse_reply(reply("big.py", blind), [whole])
    both = parse_reply(reply("big.py", blind + "\n\n" + MEAN_FIXED), [whole])
    assert both == {"big.py": original.replace(MEAN, MEAN_FIXED)}


def test_a_long_class_shows_only_the_method_the_traceback_goes_through():
    from acode.agent.fixing.localise.excerpt import excerpt
    from acode.agent.fixing.localise.locate import Focus

    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(60))
    source = (
        "import os\n\n\nclass Table:\n    \"\"\"Rows.\"\"\"\n\n    size = 3\n\n" + methods
        + "    def total(self, rows):\n        return helper_3(sum(rows)) - 1\n\n" + "".join(
            f"\ndef helper_{i}(x):\n    return x\n" for i in range(120))
    )
    line = source.splitlines().index("        return helper_3(sum(rows)) - 1") + 1
    shown = excerpt(source, "table.py", Focus(lines={line}))
    assert "class Table:\n    \"\"\"Rows.\"\"\"\n" in shown and "    def total(self, rows):" in shown
    assert "return 7" not in shown and "# other methods, not shown (unchanged): m0, m1," in shown
    # the outline: the signatures of what the shown code calls, the others counted
    assert "#   def helper_3(x)\n# and 119 other definitions" in shown and "return x\n" not in shown
    # without a traceback into it: the methods the failing test calls (`Table().total(...)`)
    called = excerpt(source, "table.py", Focus(names={"Table"}, attributes={"total", "append"}))
    assert "    def total(self, rows):" in called and "return 7" not in called
    whole = FileView("table.py", source, shown_part=shown)
    fixed = "class Table:\n    def total(self, rows):\n        return helper_3(sum(rows))\n"
    assert parse_reply(reply("table.py", fixed), [whole]) == {
        "table.py": source.replace("return helper_3(sum(rows)) - 1", "return helper_3(sum(rows))")
    }


def test_a_failing_method_of_a_test_class_of_hundreds_of_tests_is_shown_within_the_spec_budget():
    """markdown's tests/test_syntax/blocks/test_html_blocks.py: one class of 150 tests; the names of the
    others filled the room of the prompt's test part and the failing test was not shown at all."""
    from acode.agent.fixing.localise.excerpt import excerpt
    from acode.agent.fixing.localise.locate import Focus
    from acode.agent.fixing.localise.targets import MAX_CONTEXT_CHARS

    tests = "".join(f"    def test_rendering_of_case_number_{i}(self):\n        self.check({i})\n\n"
                    for i in range(150))
    source = ("import markdown\n\n\nclass TestHTMLBlocks(TestCase):\n" + tests
              + "    def test_issue_1590(self):\n        self.assertEqual(markdown.markdown('<a>'), '<a>')\n")
    shown = excerpt(source, "tests/test_html.py", Focus(names={"TestHTMLBlocks", "test_issue_1590"}),
                    outline=False)
    assert shown is not None and len(shown) <= MAX_CONTEXT_CHARS
    assert "    def test_issue_1590(self):" in shown and "test_rendering_of_case_number_7" not in shown
    assert "# other methods, not shown (unchanged): 150" in shown


def test_a_long_file_the_failing_tests_do_not_reach_is_left_to_the_tool_loop(project):
    from acode.agent.fixing.localise.excerpt import excerpt
    from acode.agent.fixing.localise.locate import Focus

    assert excerpt(big_module(), "big.py", Focus(names={"nothing_here"}, lines={4})) is None
    # named, but the failing test never reaches it: not rewritten blind; the tool loop answers
    model = ScriptedModel(["I found nothing to change in src/tool/big.py."])
    result = send(project, model, "tests/test_other.py fails; fix the bug in src/tool/big.py")
    assert not [t for t in result.tool_steps() if t.name == "write_file"]
    assert (project / "src/tool/big.py").read_text() == big_module()
