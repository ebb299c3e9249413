"""How much of a change the behavioural diff can run at all (issue 49's reach), through the CLI on a scripted
model: the code's dependencies from the project's own environment when acode is installed elsewhere, a
command that exits, and inputs that cannot be copied for each version; each was "not run" before."""

from __future__ import annotations

import os
import subprocess
import sys

from test_review_behaviour_evidence import differences, needs_sandbox, review

from acode.review.evidence.behaviour import runner_pastable as pastable
from acode.review.evidence.behaviour.child import project_site_packages

AREA = '''from unitsdep import scale


def area(width: int, height: int) -> int:
    return scale(width) * height
'''


def project_env(tmp_path):
    """A virtual environment like a user's project has, with a package acode's own environment lacks."""
    env = tmp_path / "projenv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = env / "lib" / version / "site-packages"
    (site / "unitsdep.py").write_text("def scale(value):\n    return value * 3\n")
    return env, site


@needs_sandbox
def test_a_dependency_only_the_projects_environment_has_is_imported_from_it(tmp_path):
    env, site = project_env(tmp_path)
    assert project_site_packages(tmp_path, {"VIRTUAL_ENV": str(env)}) == [str(site)]
    assert project_site_packages(tmp_path, {"VIRTUAL_ENV": sys.prefix}) == []  # acode's own: already there
    data = review(tmp_path, {"calc.py": AREA}, {"calc.py": AREA.replace("* height", "+ height")},
                  "Update calc.py", answers=["Yes"] * 8, env={**os.environ, "VIRTUAL_ENV": str(env)})
    found = differences(data)["area"]
    # before: not run, "the module does not import (ModuleNotFoundError: No module named 'unitsdep')"
    assert found["status"] == "differs", found
    assert found["difference"]["kind"] == "returns"


EXITS = '''import sys


def check(level: int) -> int:
    if level < 0:
        sys.exit(2)
    return level


def double(value: int) -> int:
    return value * 2
'''


@needs_sandbox
def test_a_command_that_exits_is_compared_by_how_it_exits_and_the_others_still_run(tmp_path):
    after = EXITS.replace("level < 0", "level <= 0").replace("value * 2", "value + value")
    data = review(tmp_path, {"cli.py": EXITS}, {"cli.py": after}, "Update cli.py", answers=["Yes"] * 8)
    found = differences(data)
    # before: the exit ended the runner ("the runner failed (exit 2)") and check was not run
    assert found["check"]["status"] == "differs", found["check"]
    difference = found["check"]["difference"]
    assert difference["input"] == "check(0)", difference
    assert (difference["old"], difference["new"]) == ("returns 0", "raises SystemExit(2)")
    assert found["double"]["status"] == "same"


def test_the_pasted_test_of_a_command_asserts_its_exit_code():
    step = {"owner": "", "name": "check", "args": (0,), "kwargs": {},
            "old": {"kind": "raise", "type": "SystemExit", "module": "builtins", "code": 2}}
    text = pastable.test_text("cli", "check", [step], "result", "test_check_as_before")
    assert "with pytest.raises(SystemExit) as exited:\n        check(0)\n" in text
    assert "    assert exited.value.code == 2\n" in text


PICK = '''from typing import AbstractSet


def pick(names: AbstractSet[str], most: int) -> list:
    return sorted(names)[:most]
'''


@needs_sandbox
def test_an_input_that_cannot_be_copied_for_each_version_is_skipped_not_the_whole_search(tmp_path):
    # Hypothesis draws dict_keys for an AbstractSet: no deep copy of it can be made for each version
    after = PICK.replace("sorted(names)", "sorted(names, reverse=True)")
    data = review(tmp_path, {"pick.py": PICK}, {"pick.py": after}, "Update pick.py", answers=["Yes"] * 8)
    found = differences(data)["pick"]
    # before: "the runner failed" on the first dict_keys drawn (its copy raised outside the guarded call)
    assert found["status"] == "differs", found


BASKET = '''import functools


class Basket:
    def __init__(self):
        self.prices = []

    def add(self, price: int) -> None:
        self.prices.append(price)

    @property
    def total(self) -> int:
        return sum(self.prices)


class Tag:
    @functools.cached_property
    def label(self) -> str:
        return "basket"
'''


@needs_sandbox
def test_a_changed_property_is_read_after_call_sequences_on_one_object(tmp_path):
    # the total forgets the first price: only an object with prices added shows it
    after = BASKET.replace("sum(self.prices)", "sum(self.prices[1:])").replace('"basket"', '"cart"')
    data = review(tmp_path, {"basket.py": BASKET}, {"basket.py": after}, "Update basket.py",
                  answers=["Yes"] * 8)
    found = differences(data)
    # before: not run, "no signature (<property object> is not a callable object)"
    for name in ("Basket.total", "Tag.label"):
        assert found[name]["status"] == "differs", found[name]
        assert found[name]["difference"]["found_by"] == "sequence"
    assert ".add(" in found["Basket.total"]["difference"]["input"]
    assert found["Basket.total"]["difference"]["input"].endswith("obj.total")


UPLOAD = '''MAX_BYTES = 4096


def accepts(size):
    return size <= MAX_BYTES
'''


@needs_sandbox
def test_the_constants_a_function_names_are_inputs_so_a_moved_boundary_is_found(tmp_path):
    after = UPLOAD.replace("size <= MAX_BYTES", "size < MAX_BYTES")
    data = review(tmp_path, {"upload.py": UPLOAD}, {"upload.py": after}, "Update upload.py", answers=["Yes"] * 8)
    found = differences(data)["accepts"]
    # before: "same" on every input tried (small numbers and the body's literals; 4096 is not in the body)
    assert found["status"] == "differs", found
    difference = found["difference"]
    assert (difference["input"], difference["old"], difference["new"]) == (
        "accepts(4096)", "returns True", "returns False")


SHAPES = '''class Part:
    def __init__(self, width, height):
        self.width, self.height = width, height


class Shape:
    def __init__(self, parts):
        self.parts = parts


def parse(text):
    return Shape([Part(*map(int, item.split("x"))) for item in text.split(",")])
'''
MEASURE = '''def area(shape):
    return sum(part.width * part.height for part in shape.parts)
'''
SHAPE_TESTS = '''from shapes import parse


def test_parse():
    assert len(parse("3x4,5x6").parts) == 2
'''


def shapes_change(tmp_path, name: str, source: str, old: str, new: str, function: str) -> dict:
    """The behavioural diff's result for ``function`` when ``shapes/<name>.py`` (``source``) changes
    ``old`` to ``new`` in the shapes package, whose tests build Shapes with ``parse``."""
    before = {"shapes/__init__.py": SHAPES, f"shapes/{name}.py": source, "tests/test_shapes.py": SHAPE_TESTS}
    data = review(tmp_path, before, {f"shapes/{name}.py": source.replace(old, new)}, f"Update {name}.py",
                  answers=["Yes"] * 8)
    return differences(data)[function]


@needs_sandbox
def test_inputs_of_the_projects_own_types_are_built_the_way_its_tests_build_them(tmp_path):
    # ``area`` takes a Shape: every text and number drawn raises, so nothing was compared before
    found = shapes_change(tmp_path, "measure", MEASURE, "shape.parts)", "shape.parts[1:])", "area")
    # before: not run, "every input tried (200) raised on both sides: none it accepts was found"
    assert found["status"] == "differs", found
    difference = found["difference"]
    assert difference["input"] == "area(parse('3x4,5x6'))", difference
    assert (difference["old"], difference["new"]) == ("returns 42", "returns 30")
    assert difference["test"].startswith("# no test: an input is built by the project's own code")


REPORT = '''class Report:
    def __init__(self, shape):
        self.shape = shape

    def widest(self):
        return max(part.width for part in self.shape.parts)
'''


@needs_sandbox
def test_an_object_built_from_the_projects_own_values_is_run_through_call_sequences(tmp_path):
    # a Report needs a Shape: built from the ones the tests build, then its changed method called
    found = shapes_change(tmp_path, "report", REPORT, "max(part.width", "min(part.width", "Report.widest")
    # before: not run, "its class cannot be built without arguments" / raised on every input
    assert found["status"] == "differs", found
    assert found["difference"]["input"] == "obj = Report(parse('3x4,5x6')); obj.widest()", found["difference"]
    assert (found["difference"]["old"], found["difference"]["new"]) == ("returns 5", "returns 3")
