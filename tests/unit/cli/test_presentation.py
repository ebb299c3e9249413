"""Presentation (issue 28, item 13), through the CLI: ``/tools`` lines that fit the terminal and end on
whole words, session titles in the user's own words, ``-r`` showing the last exchange, ``acode config
show`` naming where each value comes from, review findings most severe first."""

from __future__ import annotations

import json
import os
import re
import subprocess

from tests.helpers.agent_cli import ACODE, PROMPT, spawn_chat, write_script
from tests.helpers.chat import quit_chat
from tests.helpers.repos import make_git_repo
from tests.helpers.review_results import sample_result

from acode.paths import ProjectPaths
from acode.store.reviews import ReviewStore

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run(repo, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*ACODE, *args], cwd=repo, env={**os.environ, "COLUMNS": "100", **env},
                          capture_output=True, text=True, timeout=60, check=False)


def test_tools_lines_fit_the_terminal_and_end_on_whole_words(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    child = spawn_chat(repo, write_script(repo, []))  # 120 columns
    child.sendline("/tools")
    child.expect(r"(\d+) tools \(approval mode default\):")
    count = int(child.match.group(1))
    child.expect(PROMPT)
    lines = [ANSI.sub("", line) for line in child.before.replace("\r", "").split("\n")]
    lines = [line for line in lines if line.strip()][:count]
    assert len(lines) == count  # one line per tool: nothing wrapped onto a second line
    for line in lines:
        assert len(line) <= 120 and line.startswith("  ")
        assert line.endswith((".", " …")), line  # a whole sentence, or cut between words
    quit_chat(child)


def test_titles_hold_the_users_words_and_resume_shows_the_last_exchange(tmp_path):
    repo = make_git_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a + b\n"})
    child = spawn_chat(repo, write_script(repo, ["It adds two numbers."]))
    child.sendline("explain @calc.py")
    child.expect("It adds two numbers")
    child.expect(PROMPT)
    quit_chat(child)
    listed = json.loads(run(repo, "sessions", "list", "--json").stdout)
    assert listed[0]["title"] == "explain @calc.py"
    resumed = spawn_chat(repo, write_script(repo, []), "-r", "latest")
    shown = ANSI.sub("", resumed.before)
    assert "(2 messages)" in shown and "you: explain @calc.py" in shown and "Content from" not in shown
    assert "acode: It adds two numbers." in shown
    quit_chat(resumed)


def test_config_show_names_where_each_value_comes_from(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    (repo / ".acode").mkdir()
    (repo / ".acode" / "config.yml").write_text("model:\n  name: project-model\n")
    out = run(repo, "config", "show", ACODE_MODEL__SEED="42")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert f'model.name: "project-model"  # {repo.resolve() / ".acode" / "config.yml"}' in lines
    assert "model.seed: 42  # environment variable ACODE_MODEL__SEED" in lines
    assert len(lines) < 40 and any(re.match(r"# \d+ more at their defaults", line) for line in lines)
    every = run(repo, "config", "show", "--all").stdout.splitlines()
    assert "model.max_tokens: 1024  # default" in every and len(every) > 100


def test_review_findings_are_listed_most_severe_first(tmp_path):
    repo = make_git_repo(tmp_path / "repo")
    store = ReviewStore(ProjectPaths(repo).db_file)
    store.save(sample_result(), {})
    store.close()
    for fmt in ([], ["--format", "markdown"]):
        out = run(repo, "review", "show", *fmt)
        severities = re.findall(r"\b(critical|high|medium|low)\b", out.stdout.split("Findings", 1)[1])
        order = ["critical", "high", "medium", "low"]
        assert severities[:3] == ["critical", "high", "low"], out.stdout
        assert severities == sorted(severities, key=order.index)
