"""A small project whose bug is two calls below what its failing test imports: tool.report uses
tool.stats, and only the failing test_range executes ``spread`` (test_summary passes through ``mean``).
The test spectrum's project (acode.agent.fixing.localise.spectrum, suspect_ask)."""

STATS = '''def mean(values):
    return sum(values) / len(values)


def spread(values):
    return max(values) - min(values) + 1
'''
REPORT = '''from tool.stats import mean, spread


def parse(text):
    return [int(part) for part in text.split(",")]


def summary(text):
    return f"mean {mean(parse(text))}"


def range_line(text):
    return f"range {spread(parse(text))}"


class Shown:
    def __init__(self, values):
        self.values = values

    def __repr__(self):
        return f"Shown({self.values})"
'''
TESTS = '''from tool.report import Shown, range_line, summary


def test_summary():
    assert summary("2,4") == "mean 3.0"


def test_summary_one():
    assert summary("5") == "mean 5.0"


def test_range():
    assert range_line("2,5") == "range 3"


def test_shown_is_compared():
    assert Shown([1]).values == [1] or Shown([2]) == "never built unless the first part fails"


def test_environment():
    import not_installed_anywhere  # noqa: F401  fails before any edit, for another reason
'''

FILES = {"pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['src']\n", "src/tool/__init__.py": "",
         "src/tool/stats.py": STATS, "src/tool/report.py": REPORT, "tests/test_report.py": TESTS}
REQUEST = ("These tests fail: tests/test_report.py::test_range. Fix the bug in the code (not the tests) so "
           "they pass (run them with: python -m pytest -q tests/test_report.py::test_range)")
