"""`acode review --describe` through the CLI on a real git repository with a branch (a fresh HOME): the
description's facts come from the checks (files and functions changed, a behaviour difference, tests added
and affected, risk) and the model writes only the summary; a model that fails leaves the summary out with
one line saying why, and the description still comes out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import yaml
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

PAGING = '''def page(items, number, size=10):
    """Page ``number`` (starting at 1) of ``items``."""
    start = (number - 1) * size
    return items[start : start + size]


def pages(items, size=10):
    return (len(items) + size - 1) // size


def unused(items):
    return items
'''
TESTS = "from paging import page\n\n\ndef test_first_page():\n    assert page([1, 2, 3], 1, 2) == [1, 2]\n"
NEW_TEST = "from paging import last_page\n\n\ndef test_last_page():\n    assert last_page([1, 2, 3], 2) == [3]\n"
SUMMARY = "Adds last_page and starts pages at zero."


def branch(tmp_path: Path) -> Path:
    """main has paging.py and its test; the branch `feature` changes page(), adds last_page(), removes
    unused() and adds a test file."""
    repo = make_git_repo(tmp_path / "repo", {"paging.py": PAGING, "tests/test_paging.py": TESTS})
    git(repo, "switch", "-qc", "feature")
    changed = PAGING.replace("start = (number - 1) * size", "start = number * size")
    changed = changed.replace("\n\ndef unused(items):\n    return items\n", "")
    (repo / "paging.py").write_text(changed + "\n\ndef last_page(items, size=10):\n"
                                    "    return page(items, pages(items, size), size)\n")
    (repo / "tests" / "test_last.py").write_text(NEW_TEST)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Add last_page")
    return repo


def describe(repo: Path, steps: list, *args: str) -> subprocess.CompletedProcess:
    """`acode review --describe` with a scripted model answering ``steps`` (only the summary may ask it)."""
    script = repo.parent / "script.yml"
    script.write_text(yaml.safe_dump(steps))
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "XDG_", "GITHUB_"))}
    env.update(HOME=str(home), ACODE_MODEL__BACKEND="scripted", ACODE_MODEL__SCRIPT=str(script),
               ACODE_REVIEWER__BEHAVIOUR__CROSSHAIR_SECONDS="0")
    return subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--run-tests",
                           "--describe", *args], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_the_description_lists_the_changes_facts_and_the_models_summary(tmp_path):
    repo = branch(tmp_path)
    done = describe(repo, [{"json": {"summary": SUMMARY}}])
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    # the one scripted answer is the summary's: had a check asked the model first, it would be gone
    assert SUMMARY in text and "Summary written by the model scripted" in text
    assert "`paging.py`: modified" in text
    line = next(line for line in text.splitlines() if line.startswith("- `paging.py`"))
    assert "adds `last_page`" in line and "changes `page`" in line and "removes `unused`" in line
    assert "`pages`" not in line  # unchanged
    # the behavioural diff ran both versions of page(): its input and both outcomes
    behaviour = text.split("### Behaviour differences", 1)[1].split("###", 1)[0]
    assert "`page(" in behaviour and "before `returns [" in behaviour and "now `returns [" in behaviour
    assert "added: `tests/test_last.py`" in text
    assert "affected (they name the changed code): `tests/test_paging.py`" in text
    assert "broken by the change" in text  # test_first_page, run on both sides
    assert "### Risk: high" in text and "tests/regressed" in text


def test_a_failing_model_leaves_the_summary_out_and_the_description_comes_out(tmp_path):
    repo = branch(tmp_path)
    out = tmp_path / "description.json"
    done = describe(repo, [{"error": "the server went away"}], "--json", "-o", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data["summary"] is None
    note = "summary left out: the model step failed (ACODE-MODEL-092: the server went away)"
    assert data["summary_note"] == note and note in done.stderr
    assert note in data["markdown"]
    files = {f["path"]: f for f in data["facts"]["files"]}
    assert files["paging.py"]["changed"] == ["page"] and files["paging.py"]["added"] == ["last_page"]
    assert [d["function"] for d in data["facts"]["behaviour"]] == ["page"]
    assert data["facts"]["tests"]["added"] == ["tests/test_last.py"]
    assert data["facts"]["risk"]["level"] == "high"


def test_describe_takes_markdown_or_json_only(tmp_path):
    repo = branch(tmp_path)
    done = describe(repo, [], "--format", "sarif")
    assert done.returncode == 2 and "ACODE-REVIEW-043" in done.stderr


def test_a_summary_the_bound_cut_mid_sentence_keeps_its_whole_sentences():
    from acode.review.describing.summary import whole_sentences

    cut = "Adds `last_page`.  The `page` function\nnow starts at zero. The `last_page` function uses"
    assert whole_sentences(cut) == "Adds `last_page`. The `page` function now starts at zero."
    assert whole_sentences("One sentence the bound cut") == "One sentence the bound cut"
    assert whole_sentences("Done. ") == "Done."
