"""Executed evidence for where a bug is (acode.agent.fixing.localise.spectrum): the recording runner on a
real pytest project, the ranking of what the failing tests executed, and the command it is run with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from tests.helpers.fixing_project import fixing_repo, reply, send, traced
from tests.helpers.spectrum_project import REPORT, REQUEST, STATS, TESTS

from acode.agent.fixing.localise.spectrum import RUNNER, spectrum_command, suspects
from acode.llm.scripted import ScriptedModel


@pytest.fixture
def project(tmp_path) -> Path:
    files = {"pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n",
             "src/tool/__init__.py": "", "src/tool/stats.py": STATS, "src/tool/report.py": REPORT,
             "tests/test_report.py": TESTS, "tests/conftest.py": "import tool.report  # noqa: F401\n"}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def _newer_python() -> list[str] | None:
    """A Python 3.12 or later on this machine (pyenv's versions next to this one, else on PATH), with this
    environment's pytest on its path: the runner's sys.monitoring side."""
    found = sorted(Path(sys.base_prefix).parent.glob("3.1[2-9]*/bin/python3"))
    found += [Path(p) for name in ("python3.14", "python3.13", "python3.12") if (p := shutil.which(name))]
    site = sysconfig.get_paths()["purelib"]
    for python in found:
        check = [str(python), "-c", "import sys, pytest; assert hasattr(sys, 'monitoring')"]
        env = {**os.environ, "PYTHONPATH": site}
        if subprocess.run(check, env=env, capture_output=True, timeout=60, check=False).returncode == 0:
            return ["env", f"PYTHONPATH={site}", "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1", str(python)]
    return None


PYTHONS = {"settrace": [sys.executable] if not hasattr(sys, "monitoring") else None,
           "monitoring": [sys.executable] if hasattr(sys, "monitoring") else _newer_python()}


@pytest.fixture(params=sorted(PYTHONS))
def python(request) -> list[str]:
    if PYTHONS[request.param] is None:
        pytest.skip(f"no Python here records through {request.param}")
    return PYTHONS[request.param]


def record(project: Path, python: list[str] | None = None) -> tuple[Path, subprocess.CompletedProcess]:
    out = project.parent / "spectrum.json"
    command = [*(python or [sys.executable]), str(RUNNER), str(out), "-q", "-p", "no:cacheprovider",
               "tests/test_report.py"]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=120, check=False)
    return out, done


def test_the_runner_records_each_tests_functions_and_prints_what_pytest_prints(project, python):
    out, done = record(project, python)
    assert done.returncode == 1  # pytest's own exit code: tests failed
    assert "2 failed, 3 passed" in done.stdout
    assert "FAILED tests/test_report.py::test_range" in done.stdout
    data = json.loads(out.read_text())
    names = {i: f"{path}:{name}" for i, (path, name, _line) in enumerate(data["functions"])}
    ran = {node.split("::")[1]: (entry["failed"], {names[i] for i in entry["functions"]})
           for node, entry in data["tests"].items()}
    assert ran["test_range"] == (True, {"src/tool/report.py:range_line", "src/tool/report.py:parse",
                                        "src/tool/stats.py:spread", "tests/test_report.py:test_range"})
    assert ran["test_summary"][0] is False
    assert "src/tool/stats.py:mean" in ran["test_summary"][1]
    assert ran["test_environment"][0] is True
    # nothing outside the project folder is kept (pytest's own functions, the standard library)
    assert all(not Path(path).is_absolute() and not path.startswith("..") for path, _, _ in data["functions"])


def test_a_project_that_turns_coverage_on_is_still_recorded(project, python):
    """pytest-cov's tracer would take sys.settrace's one slot (semver's addopts has --cov): the runner
    turns coverage off for its run."""
    pytest.importorskip("pytest_cov")
    if "PYTEST_DISABLE_PLUGIN_AUTOLOAD=1" in python:
        pytest.skip("this Python runs without plugins: pytest-cov would not load")
    (project / "pyproject.toml").write_text(
        "[tool.pytest.ini_options]\npythonpath = ['src']\naddopts = '--cov=tool --cov-report=term'\n")
    out, done = record(project, python)
    assert "2 failed, 3 passed" in done.stdout
    data = json.loads(out.read_text())
    entry = next(e for n, e in data["tests"].items() if n.endswith("::test_range"))
    assert {data["functions"][i][1] for i in entry["functions"]} >= {"range_line", "spread"}


def test_what_only_the_named_failing_tests_executed_ranks_first(project):
    out, _ = record(project)
    ranked = suspects(out, project, ["tests/test_report.py::test_range"])
    assert {(s.path.as_posix(), s.name) for s in ranked[:2]} == {
        ("src/tool/stats.py", "spread"), ("src/tool/report.py", "range_line")}
    assert ranked[0].score == 1.0 and (ranked[0].failing, ranked[0].passing) == (1, 0)
    parse = next(s for s in ranked if s.name == "parse")
    assert parse.score == pytest.approx(1 / 3 ** 0.5)  # the failing test and 2 passing ones ran it
    # never suspect: a test file's functions, and what only passing tests executed
    assert not any(s.path.name.startswith("test_") or s.name in ("mean", "summary") for s in ranked)


def test_a_test_failing_for_another_reason_is_not_evidence(project):
    out, _ = record(project)
    # every failing test counted: the environment's failure is no evidence about spread, but dilutes it
    everything = suspects(out, project)
    spread = next(s for s in everything if s.name == "spread")
    assert spread.score == pytest.approx(1 / 2 ** 0.5)
    assert next(s for s in suspects(out, project, ["tests/test_report.py"]) if s.name == "spread").score < 1


def test_what_pytest_runs_to_report_a_failure_is_not_recorded(project, python):
    """An assertion's explanation calls __repr__ of what it compares, only when the test fails: that would
    make __repr__ look like the bug."""
    (project / "tests/test_report.py").write_text(TESTS.replace(
        '"never built unless the first part fails"', '"a repr the explanation prints"').replace(
        "Shown([1]).values == [1] or ", ""))
    out, done = record(project, python)
    assert "FAILED tests/test_report.py::test_shown_is_compared" in done.stdout
    data = json.loads(out.read_text())
    entry = next(e for n, e in data["tests"].items() if n.endswith("test_shown_is_compared"))
    names = {data["functions"][i][1] for i in entry["functions"]}
    assert "Shown.__init__" in names and "Shown.__repr__" not in names


def test_a_missing_or_broken_record_gives_no_suspects(tmp_path):
    assert suspects(tmp_path / "none.json", tmp_path) == []
    (tmp_path / "bad.json").write_text("{not json")
    assert suspects(tmp_path / "bad.json", tmp_path) == []


def test_the_command_runs_the_same_pytest_through_the_runner(tmp_path, monkeypatch):
    out = tmp_path / "s.json"
    assert spectrum_command("/env/bin/python -m pytest -q tests/test_a.py", out) == \
        f"/env/bin/python {RUNNER} {out} -q tests/test_a.py"
    assert spectrum_command("PYTHONPATH=src python3 -m pytest tests/t.py", out) == \
        f"PYTHONPATH=src python3 {RUNNER} {out} tests/t.py"
    assert spectrum_command("cd sub && python -m pytest tests/t.py", out) is None
    assert spectrum_command("make test", out) is None
    assert spectrum_command("python -m pytest 'unclosed", out) is None
    # `pytest` by itself: the Python its script starts with
    script = tmp_path / "bin" / "pytest"
    script.parent.mkdir()
    script.write_text("#!/env/bin/python3.11\nimport pytest\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(script.parent))
    expected = f"/env/bin/python3.11 {RUNNER} {out} -q tests/t.py"
    assert spectrum_command("pytest -q tests/t.py", out) == expected


SPREAD_FIXED = STATS.replace(" - min(values) + 1", " - min(values)")


def test_the_module_only_the_failing_test_executed_is_shown_and_fixed(tmp_path, monkeypatch):
    """The failing assertion is in the test (no traceback into the project) and the test imports
    tool.report; the bug is in tool.stats, two calls down: only what the tests executed points there."""
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/stats.py", SPREAD_FIXED)])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1)
    assert result.ok and "passes now" in result.answer, result.message
    assert (project / "src/tool/stats.py").read_text() == SPREAD_FIXED
    prompt = model.calls[0]["messages"][0].content
    assert "src/tool/report.py\n```python\n" in prompt and "src/tool/stats.py\n```python\n" in prompt
    steps = [s for s in result.tool_steps() if s.name == "run_shell_command"]
    runs = [s.arguments["command"] for s in steps]
    assert traced("python -m pytest -q tests/test_report.py").fullmatch(runs[1])
    # the files' traced run may take agent.fix.files_seconds_min (a candidate's run: 20 s here)
    assert steps[1].arguments["timeout_seconds"] == 300.0 and steps[2].arguments["timeout_seconds"] == 20.0
    # and the record is gone: it was written outside the project, in a folder of its own
    assert not list(tmp_path.glob("**/spectrum.json"))


def test_without_the_spectrum_the_module_is_not_shown(tmp_path, monkeypatch):
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/stats.py", SPREAD_FIXED)])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1, spectrum=False)
    assert (project / "src/tool/stats.py").read_text() == STATS
    prompt = model.calls[0]["messages"][0].content
    assert "src/tool/report.py\n```python\n" in prompt and "src/tool/stats.py\n```python" not in prompt
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    assert runs[1] == "python -m pytest -q tests/test_report.py"  # the neighbours check's run, untraced


@pytest.mark.slow
def test_a_run_the_tracing_changed_is_neither_the_baseline_nor_evidence(tmp_path, monkeypatch):
    """python-dotenv asks sys.gettrace() whether a debugger runs it: its failing tests passed when traced.
    Such a run is no baseline for the neighbours check: the files run again, untraced."""
    module = "import sys\n\n\ndef level():\n    return 2 if sys.gettrace() else 1\n"
    tests = "from tool.debug import level\n\n\ndef test_level():\n    assert level() == 2\n"
    project = fixing_repo(tmp_path, monkeypatch, {"src/tool/debug.py": module, "tests/test_debug.py": tests})
    fixed = "def level():\n    return 2\n"
    model = ScriptedModel([reply("src/tool/debug.py", fixed)])
    request = ("These tests fail: tests/test_debug.py::test_level. Fix the bug in the code (not the tests) "
               "so they pass (run them with: python -m pytest -q tests/test_debug.py::test_level)")
    result = send(project, model, request, line_edit_calls=0, max_model_calls=1)
    assert result.ok, result.message
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    files = "python -m pytest -q tests/test_debug.py"
    assert traced(files).fullmatch(runs[1]) and runs[2] == files


@pytest.mark.slow
def test_each_first_suspect_is_asked_about_alone_and_its_function_merged_in(tmp_path, monkeypatch):
    """After the one call fails, each suspect function is shown alone and asked for corrected: a reply
    that is the function unchanged is no candidate, a corrected function is merged into its file and the
    tests choose. The suspects' tokens do not count against the token budget."""
    stats = STATS + "\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n"
    files = {"src/tool/stats.py": stats, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    range_line = 'def range_line(text):\n    return f"range {spread(parse(text))}"\n'
    model = ScriptedModel([
        reply("src/tool/report.py", REPORT),  # the one call: the file unchanged
        reply("src/tool/report.py", range_line),  # the first suspect, range_line: unchanged
        reply("src/tool/stats.py", "def spread(values):\n    return max(values) - min(values)\n"),
    ])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1, token_budget=0.01)
    assert result.ok and "passes now" in result.answer, result.message
    fixed = stats.replace(" - min(values) + 1", " - min(values)")
    assert (project / "src/tool/stats.py").read_text() == fixed
    assert "-    return max(values) - min(values) + 1" in result.answer
    asked = [call["messages"][0].content for call in model.calls[1:]]
    assert "most likely in `range_line` of src/tool/report.py" in asked[0]
    assert "most likely in `spread` of src/tool/stats.py" in asked[1]
    assert "def spread(values)" in asked[1] and "def median" not in asked[1] and "def mean" not in asked[1]
    assert "def test_range" in asked[1] and "assert" in asked[1]  # the tests and what they printed
    # the request, the tests and their output first, the same for each suspect (a prompt cache reuses it)
    shared = asked[0][: asked[0].index("The bug is most likely")]
    assert asked[1].startswith(shared) and asked[1].index("def spread") > asked[1].index("def test_range")
    runs = [s.arguments["command"] for s in result.tool_steps() if s.name == "run_shell_command"]
    assert runs.count("python -m pytest -q tests/test_report.py::test_range") == 2  # before, and the fix


def test_no_suspect_asks_when_they_are_off(tmp_path, monkeypatch):
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/report.py", REPORT)])
    result = send(project, model, REQUEST, line_edit_calls=0, max_model_calls=1, suspect_asks=0)
    assert len(model.calls) == 1 and "still fails" in result.message
    assert (project / "src/tool/stats.py").read_text() == STATS


def test_the_suspect_asks_are_distinct_functions_shown_alone(tmp_path):
    """A nested function is asked about as the function it is written in, a method is shown after its
    class's header lines (not with its other methods); a nested class's method and a file that does not
    parse are skipped."""
    from acode.agent.fixing.localise.spectrum import Suspect
    from acode.agent.fixing.merge import merge_partial
    from acode.agent.fixing.suspect_ask import suspect_asks

    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(5))
    files = {
        "a.py": "import os\n\n\ndef outer(x):\n    def inner(y):\n        return y\n    return inner(x)\n",
        "b.py": f"@dataclass\nclass Outer(\n    Base,\n):\n    'Doc.'\n\n{methods}",
        "c.py": "class A:\n    class B:\n        def f(self):\n            return 1\n",
        "d.py": "def broken(:\n",
        "e.py": "class P:\n    @property\n    def a(self):\n        return 1\n\n"
                "    def b(self):\n        return 2\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    m3 = files["b.py"].splitlines().index("    def m3(self):") + 1
    ranked = [Suspect(Path("a.py"), "outer.<locals>.inner", 5, 1.0, 1, 0),
              Suspect(Path("a.py"), "outer", 4, 1.0, 1, 0),
              Suspect(Path("d.py"), "broken", 1, 1.0, 1, 0),
              Suspect(Path("c.py"), "A.B.f", 3, 1.0, 1, 0),
              Suspect(Path("b.py"), "Outer.m3", m3, 0.9, 1, 0),
              Suspect(Path("b.py"), "Outer.m3.<locals>.<listcomp>", m3 + 1, 0.9, 1, 0),
              Suspect(Path("e.py"), "P.b", 6, 0.8, 1, 0)]
    asks = suspect_asks(ranked, tmp_path, 5)
    assert [(a.view.path, a.name) for a in asks] == [("a.py", "outer"), ("b.py", "Outer.m3"), ("e.py", "P.b")]
    # the class's header stops before its first method's decorator
    assert asks[2].shown.text == "class P:\n\n    def b(self):\n        return 2\n"
    assert asks[0].shown.text == files["a.py"].split("\n\n\n")[1]
    header = "@dataclass\nclass Outer(\n    Base,\n):\n\n"
    assert asks[1].shown.text == header + "    def m3(self):\n        return 3\n"
    assert asks[1].view.text == files["b.py"] and asks[1].view.shown_part == asks[1].shown.text
    # a reply of the method alone, or inside its class, replaces that method and nothing else
    method = "def m3(self):\n    return 33\n"
    inside = "class Outer(Base):\n" + "".join(f"    {line}\n" for line in method.splitlines())
    for written in (method, inside):
        merged = merge_partial(files["b.py"], written, shown=asks[1].shown.text)
        assert merged == files["b.py"].replace("return 3\n", "return 33\n"), merged
    assert [a.name for a in suspect_asks(ranked, tmp_path, 1)] == ["outer"]


@pytest.mark.slow
def test_a_suspect_fix_that_passes_some_failing_tests_is_built_on(tmp_path, monkeypatch):
    """Two bugs in two functions, each failing one named test: the ask about ``mean`` makes test_summary
    pass (better than before), and the ask about ``spread`` is merged into that candidate, not into the
    original file: together they pass."""
    stats = STATS.replace("sum(values) / len(values)", "sum(values) / (len(values) + 1)")
    files = {"src/tool/stats.py": stats, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    named = "tests/test_report.py::test_range tests/test_report.py::test_summary"
    request = f"These tests fail: {named}. Fix the bug (run them with: python -m pytest -q {named})"
    unchanged = [reply("src/tool/report.py", REPORT)] * 4  # the one call; parse, summary, range_line
    mean, spread = STATS.split("\n\n\n")
    model = ScriptedModel([*unchanged, reply("src/tool/stats.py", mean + "\n"),
                           reply("src/tool/stats.py", spread.replace(" + 1", ""))])
    result = send(project, model, request, line_edit_calls=0, max_model_calls=1, suspect_asks=5,
                  token_budget=0.01)  # the greedy asks only: no line asks, no samples
    assert result.ok and "passes now" in result.answer, result.message
    assert (project / "src/tool/stats.py").read_text() == SPREAD_FIXED
    assert "most likely in `spread`" in model.calls[-1]["messages"][0].content


WRONG_RANGE = 'def range_line(text):\n    return f"range: {spread(parse(text))}"\n'
FIXED_RANGE = 'def range_line(text):\n    return f"range {spread(parse(text)) - 1}"\n'


@pytest.mark.slow
def test_an_ask_whose_reply_changed_the_function_is_sampled_and_no_whole_file_follows(tmp_path, monkeypatch):
    """The greedy ask about range_line changes it (wrongly): its ask is sampled next (the prompt is still in
    the KV cache), and the sample is tested."""
    from acode.agent.fixing.suspect_asks import SUSPECT_SEED

    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/report.py", REPORT), reply("src/tool/report.py", WRONG_RANGE),
                           reply("src/tool/report.py", FIXED_RANGE)])
    result = send(project, model, REQUEST, line_edit_calls=0, suspect_asks=2, token_budget=40)
    assert result.ok and "passes now" in result.answer, result.message
    fixed = REPORT.replace("spread(parse(text))}", "spread(parse(text)) - 1}")
    assert (project / "src/tool/report.py").read_text() == fixed
    assert (project / "src/tool/stats.py").read_text() == STATS
    greedy, sample = model.calls[1], model.calls[2]
    assert sample["messages"] == greedy["messages"]
    assert "most likely in `range_line`" in sample["messages"][0].content
    assert (greedy["temperature"], sample["temperature"], sample["seed"]) == (0.0, 0.7, SUSPECT_SEED + 1)


@pytest.mark.slow
def test_a_function_given_back_unchanged_gets_the_one_line_ask(tmp_path, monkeypatch):
    """Where the 1.5B copies the function back, asked for its one wrong line it may name it: the line is
    changed inside that function, merged, and tested. The prompt is the function ask's until the
    instruction (a prompt cache reuses it). A line ask that copies the instruction's example ends that
    suspect's asks (the next suspect follows); a line of another function is no candidate."""
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    range_line = 'def range_line(text):\n    return f"range {spread(parse(text))}"\n'
    spread = STATS.split("\n\n\n")[1]
    copied = "```diff\n-<the wrong line>\n+x\n```\n"
    outside = "```diff\n-    return sum(values) / len(values)\n+    return 0\n```\n"  # a line of mean
    line = "```diff\n-    return max(values) - min(values) + 1\n+    return max(values) - min(values)\n```\n"
    model = ScriptedModel([reply("src/tool/report.py", REPORT), reply("src/tool/report.py", range_line),
                           copied, reply("src/tool/stats.py", spread), outside, line])
    result = send(project, model, REQUEST, line_edit_calls=0, suspect_asks=2, token_budget=40)
    assert result.ok and "passes now" in result.answer, result.message
    assert (project / "src/tool/stats.py").read_text() == SPREAD_FIXED
    prompts = [call["messages"][0].content for call in model.calls]
    assert "Exactly one line of `range_line` is wrong" in prompts[2]
    assert "most likely in `spread`" in prompts[3]
    shared = prompts[3][: prompts[3].index("Reply with `spread`")]
    assert prompts[4].startswith(shared) and "Exactly one line of `spread` is wrong" in prompts[4]
    assert [c["temperature"] for c in model.calls[:5]] == [0.0] * 5 and model.calls[5]["temperature"] == 0.7
    assert model.calls[4]["stop"] == ["\n```\n"]


@pytest.mark.slow
def test_the_asks_samples_stop_at_the_token_budget_and_no_whole_file_follows_the_asks(tmp_path, monkeypatch):
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    spread = STATS.split("\n\n\n")[1]
    model = ScriptedModel([reply("src/tool/report.py", REPORT), reply("src/tool/report.py", WRONG_RANGE),
                           reply("src/tool/stats.py", spread)])
    result = send(project, model, REQUEST, line_edit_calls=0, suspect_asks=2, token_budget=1)
    assert len(model.calls) == 3 and "still fails" in result.message  # no sample, no fixer's framing
    assert (project / "src/tool/report.py").read_text() == REPORT


@pytest.mark.slow
def test_a_files_run_whose_output_is_cut_still_gives_suspects_and_a_fair_check(tmp_path, monkeypatch):
    """150 other tests of the file fail for another reason: the files' run prints more than the tool's
    8,000 characters and the named test's FAILED line is cut. The record still names every failure, so the
    spectrum is used, and the candidate is not blamed for failures the cut output did not list before."""
    many = ('\n\nimport pytest\n\n\n@pytest.mark.parametrize("n", range(150))\ndef test_env(n):\n'
            '    import not_installed_anywhere  # noqa: F401\n')
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS + many}
    project = fixing_repo(tmp_path, monkeypatch, files)
    range_line = 'def range_line(text):\n    return f"range {spread(parse(text))}"\n'
    spread = "def spread(values):\n    return max(values) - min(values)\n"
    model = ScriptedModel([reply("src/tool/report.py", REPORT), reply("src/tool/report.py", range_line),
                           reply("src/tool/stats.py", spread)])
    result = send(project, model, REQUEST, line_edit_calls=0, suspect_asks=2, token_budget=0.01)
    steps = [s for s in result.tool_steps() if s.name == "run_shell_command"]
    assert "characters omitted" in steps[1].output  # the traced files' run, cut
    assert "FAILED tests/test_report.py::test_range" not in steps[1].output
    assert "most likely in `spread`" in model.calls[2]["messages"][0].content
    assert result.ok and "passes now" in result.answer, result.message
    assert (project / "src/tool/stats.py").read_text() == SPREAD_FIXED


@pytest.mark.slow
def test_with_only_suspects_shown_a_failing_candidate_is_told_nowhere_and_asks_go_on(tmp_path, monkeypatch):
    """Both modules past max_file_lines: no whole-file prompt, only the suspect asks. A candidate that fails
    has no whole-file prompt to be fed back into (pyparsing 3.2.4->3.2.5 crashed there rendering one), and
    the next ask follows."""
    files = {"src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
    project = fixing_repo(tmp_path, monkeypatch, files)
    model = ScriptedModel([reply("src/tool/report.py", WRONG_RANGE),
                           reply("src/tool/report.py", FIXED_RANGE)])
    result = send(project, model, REQUEST, max_file_lines=3, suspect_asks=2, token_budget=40)
    assert result.ok and "passes now" in result.answer, result.message
    assert "most likely in `range_line`" in model.calls[0]["messages"][0].content
    assert model.calls[1]["temperature"] == 0.7
