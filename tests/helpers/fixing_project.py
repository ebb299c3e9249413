"""A small copy of a real project's shape for the test-driven fixer: a ``src/`` package of many modules,
a name re-exported by the package (``from tool import parse_args``), a 600-line module, tests under
``tests/`` and one unrelated test that fails (so running the whole suite can never pass)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

FILLER_MODULES = 30
CLI = '''"""Command-line parsing."""

from .config import DEFAULTS


def parse_args(argv):
    """Options from the command line: -v/--verbose, --name=NAME; the rest are the defaults."""
    options = dict(DEFAULTS)
    for arg in argv:
        if arg in ("-v", "--verbose"):
            options["verbose"] = False
        elif arg.startswith("--name="):
            options["name"] = arg.split("=", 1)[1]
    return options
'''
CLI_FIXED = CLI.replace('options["verbose"] = False', 'options["verbose"] = True')
MEAN = '''def mean(values):
    """The arithmetic mean of a non-empty list of numbers."""
    return sum(values) / (len(values) - 1)
'''
MEAN_FIXED = MEAN.replace("(len(values) - 1)", "len(values)")
TEST_CLI = '''from tool import parse_args


def test_parse_args():
    assert parse_args(["-v"])["verbose"] is True


def test_name():
    assert parse_args(["--name=x"])["name"] == "x"
'''
PACKAGE_INIT = '"""The tool."""\n\nfrom .cli import parse_args\n\n__all__ = ["parse_args"]\n'
TEST_OTHER = "from tool.mod_3 import value\n\n\ndef test_value():\n    assert value() == 4\n"
TEST_BIG = '''from tool.big import mean, offset_3


def test_mean():
    assert mean([5]) == 5
    assert mean([2, 4]) == 3


def test_offset():
    assert offset_3(1) == 4
'''


def _offsets(first: int, last: int) -> str:
    template = 'def offset_{0}(x):\n    """Return x plus {0}."""\n    return x + {0}\n\n\n'
    return "".join(template.format(i) for i in range(first, last))


def big_module() -> str:
    """A 600-line module: 120 small functions, the buggy ``mean`` among them."""
    head = '"""Many small helpers."""\n\nimport math\n\n\n'
    text = head + _offsets(0, 60) + MEAN + "\n\n" + _offsets(60, 119)
    return text.rstrip("\n") + "\n"


def project_files() -> dict[str, str]:
    files = {
        "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n",
        "src/tool/__init__.py": PACKAGE_INIT,
        "src/tool/config.py": 'DEFAULTS = {"verbose": False, "name": "tool"}\n',
        "src/tool/cli.py": CLI,
        "src/tool/big.py": big_module(),
        "tests/test_cli.py": TEST_CLI,
        "tests/test_big.py": TEST_BIG,
        "tests/test_other.py": TEST_OTHER,
    }
    for i in range(FILLER_MODULES):
        files[f"src/tool/mod_{i}.py"] = f'def value():\n    """Module {i}."""\n    return {i}\n'
    return files


QUIET = {
    name: {"enabled": False} for name in ("next_speaker", "compression", "loop_detection", "checkpoints")
}


def send(root: Path, model, request: str, **fix: object):
    """``acode -p REQUEST --approval-mode yolo`` with no test command configured (other ``agent.fix``
    settings as keywords)."""
    from acode.agent.session.agent_session import SessionOptions
    from acode.agent.session.builder import build_session
    from acode.config import Settings

    # the model's candidates alone unless a test asks for the edits without a model (test_fixing_mutants.py,
    # test_fixing_crash_edits.py)
    fix = {"test_command": None, "mutants": 0, "deletions": 0, "crash_edits": 0, **fix}
    settings = Settings.model_validate({**QUIET, "agent": {"fix": fix}})
    session = build_session(settings, root, SessionOptions(approval_mode="yolo"), model=model)
    try:
        return session.send(request)
    finally:
        session.close()


def reply(path: str, code: str) -> str:
    return f"{path}\n```python\n{code}```\n"


def fixed_by_a_line_edit(root: Path, path: str, echoed: str, line: str, request: str, fixed: str,
                         **fix: object) -> str:
    """``request`` with the scripted model: the one call writes ``echoed`` back unchanged (the file's
    shown part), the first line ask answers ``line``; the run must end with ``path`` as ``fixed``. The
    first prompt."""
    from acode.llm.scripted import ScriptedModel

    model = ScriptedModel([reply(path, echoed), line])
    result = send(root, model, request, **fix)
    assert result.ok and "passes now" in result.answer, result.message
    assert (root / path).read_text() == fixed
    return model.calls[0]["messages"][0].content


def traced(command: str) -> re.Pattern[str]:
    """``command`` (``python -m pytest ...``) as the fixer runs it to record the test spectrum: through
    acode's runner, with a record file of its own (acode.agent.fixing.localise.spectrum)."""
    from acode.agent.fixing.localise.spectrum import RUNNER

    python, arguments = command.split(" -m pytest ", 1)
    runner = re.escape(str(RUNNER))
    return re.compile(rf"{re.escape(python)} {runner} \S+/spectrum\.json {re.escape(arguments)}")


def fixing_repo(tmp_path: Path, monkeypatch, files: dict[str, str] | None = None) -> Path:
    """The project's shape with ``files`` added, as a git repository, and the Python running the tests
    first on PATH (the fixer's ``python -m pytest`` is then this one, with its pytest)."""
    from tests.helpers.repos import make_git_repo

    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    return make_git_repo(tmp_path / "repo", {**project_files(), **(files or {})})
