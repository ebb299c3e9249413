"""Issue 47 items 6, 8, 9 and 12: what a change under review can make the review print or store.

Item 6: the code under review runs in the sandbox without the checkout's git configuration and credentials,
and whatever it prints (test output, the return values the behavioural diff quotes) reaches every output
shortened and redacted. Item 8: under GitHub Actions nothing the change controls starts a log line as a
workflow command. Item 9: text from the change or the model cannot break out of the Markdown report. Item
12: the files acode writes that hold prompts or outputs are for their owner only.

Every credential here is fake."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from acode.sandbox import find_sandbox

SANDBOX, WHY_NOT = find_sandbox()
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox here: {WHY_NOT}")

CONFIG_MARKER = "CONFIG-MARKER-4711"
INCLUDED_MARKER = "INCLUDED-MARKER-0815"
NO_FINDINGS = {"json": {"findings": []}}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout


def committed_repo(path: Path, files: dict[str, str], script: list | None = None) -> Path:
    """A repository on ``main`` holding ``files`` and a scripted model's settings."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    for key, value in (("user.email", "dev@example.com"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)
    script_file = path.parent / "script.yml"
    script_file.write_text(yaml.safe_dump(script or [NO_FINDINGS] * 6))
    config = {"model": {"backend": "scripted", "script": str(script_file)},
              "reviewer": {"require_candidates": False, "behaviour": {"crosshair_seconds": 0, "seconds": 1}}}
    files = {".acode/config.yml": yaml.safe_dump(config), **files}
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


def review(repo: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acode", "review", *args], cwd=repo,
                          env={**os.environ, "COLUMNS": "200", **(env or {})}, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL, check=False)


READS_GIT_CONFIG = '''from pathlib import Path


def info(name):
    git = Path(__file__).with_name(".git")
    return (git / "config").read_text()[-400:] + (git / "extra.conf").read_text() + name
'''
TEST_PRINTS_GIT_CONFIG = '''from pathlib import Path


def test_info():
    git = Path(__file__).with_name(".git")
    print((git / "config").read_text(), (git / "extra.conf").read_text())
    assert False
'''


@needs_sandbox
def test_the_changes_code_cannot_read_the_checkouts_git_configuration(tmp_path):
    repo = committed_repo(tmp_path / "repo", {"info.py": "def info(name):\n    return name.upper()\n"})
    with (repo / ".git" / "config").open("a") as config:  # as actions/checkout leaves it (v6: an include)
        config.write(f'[acodetest]\n\tmarker = {CONFIG_MARKER}\n[includeIf "gitdir:{repo}/.git"]\n'
                     f"\tpath = {repo}/.git/extra.conf\n")
    (repo / ".git" / "extra.conf").write_text(f"[acodetest]\n\tincluded = {INCLUDED_MARKER}\n")
    assert CONFIG_MARKER in git(repo, "config", "--list") and INCLUDED_MARKER in git(repo, "config", "--list")
    (repo / "info.py").write_text(READS_GIT_CONFIG)  # uncommitted: the tests run on the checkout itself
    (repo / "test_info.py").write_text(TEST_PRINTS_GIT_CONFIG)

    out = review(repo, "--uncommitted", "--run-tests", "--json")
    assert out.returncode in (0, 50), out.stderr
    result = json.loads(out.stdout)
    function = result["behaviour"]["functions"][0]
    assert "[core]" in json.dumps(function), function  # it ran and read a configuration: git's core only
    assert "test_info" in json.dumps(result["tests"]), result["tests"]
    for marker in (CONFIG_MARKER, INCLUDED_MARKER):
        assert marker not in out.stdout and marker not in out.stderr
    assert CONFIG_MARKER in git(repo, "config", "--list")  # outside the sandbox nothing changed


def test_a_worktrees_submodules_and_your_own_git_configurations_are_hidden_too(tmp_path, monkeypatch):
    from acode.sandbox_git import hidden_git_files

    repo = committed_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text('[user]\n\tname = Dev\n[url "https://x-access-token:fake@example.invalid/"]'
                                     '\n\tinsteadOf = https://example.invalid/\n')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    git(repo, "config", "http.https://example.invalid/.extraheader", "AUTHORIZATION: basic ZmFrZQ==")
    git(repo, "worktree", "add", "-q", str(tmp_path / "tree"))
    (repo / ".git" / "modules" / "sub").mkdir(parents=True)
    (repo / ".git" / "modules" / "sub" / "config").write_text('[http]\n\textraheader = AUTHORIZATION: x\n')
    (repo / ".git" / "credentials").write_text("https://user:fake@example.invalid\n")
    shown = dict(hidden_git_files(tmp_path / "tree"))
    assert {repo / ".git" / "config", repo / ".git" / "modules" / "sub" / "config",
            repo / ".git" / "credentials"} <= set(shown)
    assert all("AUTHORIZATION" not in text.read_text() and "fake" not in text.read_text()
               for text in shown.values())
    assert "repositoryformatversion" in shown[repo / ".git" / "config"].read_text()
    assert shown[home / ".gitconfig"].read_text() == "[user]\n\tname = Dev\n"


# fake credentials of each shape detect-secrets 1.5 has no plugin for (acode.secret_shapes)
FAKE_KEYS = {
    "header": "eC1hY2Nlc3MtdG9rZW46Z2hzX0Zha2VGYWtlRmFrZUZha2VGYWtl",
    "openai": "sk-proj-Fake1Fake2Fake3Fake4Fake5Fake6Fake7Fake8",
    "anthropic": "sk-ant-api03-Fake1Fake2Fake3Fake4Fake5Fake6Fake7Fake8-FakeAA",
    "huggingface": "hf_FakeFakeFakeFakeFakeFakeFakeFake12",
    "google": "AIzaFakeFakeFakeFakeFakeFakeFakeFake123",
    "github": "github_pat_11FAKEFAKE0FakeFakeFakeFake_FakeFakeFakeFakeFakeFake",
}
_PRINTED = "AUTHORIZATION: basic {header}\\nkeys {openai} {anthropic} {huggingface} {google} {github}"


def printed_keys_repo(path: Path) -> Path:
    """A change whose function returns fake credentials and whose test prints them (the source holds them
    base64-encoded: only what the code prints at run time carries them)."""
    import base64

    secret = base64.b64encode(_PRINTED.format(**FAKE_KEYS).encode()).decode()
    repo = committed_repo(path, {"info.py": "def info(name):\n    return name.upper()\n",
                                 "test_info.py": "from info import info\n\n\ndef test_info():\n"
                                                 "    assert info('a') == 'A'\n"})
    git(repo, "switch", "-q", "-c", "feature")
    (repo / "info.py").write_text(f"import base64\n\n\ndef info(name):\n    return base64.b64decode("
                                  f"'{secret}').decode() + name\n")
    (repo / "test_info.py").write_text("from info import info\n\n\ndef test_info():\n    print(info('x'))\n"
                                       "    assert info('a') == 'A'\n")
    git(repo, "commit", "-qam", "Read the keys")
    return repo


@pytest.mark.slow
@needs_sandbox
def test_keys_the_changes_code_prints_are_redacted_in_every_output_and_the_database(tmp_path):
    repo = printed_keys_repo(tmp_path / "repo")
    report = tmp_path / "report"
    first = review(repo, "--base", "main", "--run-tests", "--json", "-f", "markdown", "-o", str(report))
    assert first.returncode == 50, first.stderr
    result = json.loads(first.stdout)
    assert "[REDACTED]" in json.dumps(result["behaviour"]) and "[REDACTED]" in json.dumps(result["tests"])
    outputs = {"json": first.stdout + first.stderr, "markdown": report.read_text()}
    # the stored review again: SARIF to the file and the terminal report on stdout, then annotations
    again = review(repo, "--base", "main", "-f", "sarif", "-o", str(report))
    outputs |= {"sarif": report.read_text(), "terminal": again.stdout + again.stderr}
    github = review(repo, "--base", "main", "-f", "github")
    outputs["github"] = github.stdout + github.stderr
    assert "[REDACTED]" in outputs["terminal"] and "[REDACTED]" in outputs["markdown"]
    import sqlite3

    with sqlite3.connect(repo / ".acode" / "acode.db") as db:
        outputs["database"] = "\n".join(db.iterdump())
    assert "info" in outputs["database"]
    leaked = {(where, name) for where, text in outputs.items()
              for name, key in FAKE_KEYS.items() if key in text}
    assert not leaked


# --- items 8 and 9: names and text from the change in the CI outputs -------------------------------------
HOSTILE_FILE = "a\n::stop-commands::tok\n.py"  # a file name that would silence later workflow commands
HOSTILE_BRANCH = "feat|x`<img/src=x/onerror=alert(1)>"  # a valid ref name
HOSTILE_TEST_ID = "<img src=x onerror=alert(1)>|</details>"
BACKTICK_LINE = "    return eval(str(x))  # `<img src=x onerror=alert(2)>"


@pytest.fixture(scope="module")
def hostile_review(tmp_path_factory):
    """One review (GitHub Actions, the Markdown report written with -o) of a change whose file name, branch
    name, test id and source line each try to escape their place; then the stored review as annotations."""
    tmp = tmp_path_factory.mktemp("hostile")
    test = ("import pytest\nfrom calc import calc\n\n\n"
            f"@pytest.mark.parametrize('x', [1], ids=[{HOSTILE_TEST_ID!r}])\n"
            "def test_calc(x):\n    assert calc(x) == 2\n")
    repo = committed_repo(tmp / "repo", {"calc.py": "def calc(x):\n    return x + 1\n", "test_calc.py": test})
    git(repo, "switch", "-q", "-c", HOSTILE_BRANCH)
    (repo / "calc.py").write_text(f"def calc(x):\n{BACKTICK_LINE}\n")
    (repo / HOSTILE_FILE).write_text("def run(x):\n    return eval(x)\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "Change calc")
    summary = tmp / "summary.md"
    actions = {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(summary)}
    report = tmp / "report.md"  # written with -o: the terminal report still goes to stdout
    first = review(repo, "--base", "main", "--run-tests", "-f", "markdown", "-o", str(report), env=actions)
    assert first.returncode == 50, first.stderr
    github = review(repo, "--base", "main", "-f", "github", env=actions)
    return {"terminal": first, "markdown": report.read_text(), "summary": summary.read_text(),
            "github": github}


def _command_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.lstrip(" \t").startswith("::")]


def test_under_github_actions_nothing_from_the_change_starts_a_workflow_command(hostile_review):
    terminal = hostile_review["terminal"]
    assert "%3A:stop-commands::tok" in terminal.stdout  # the file name, escaped where it starts a line
    assert _command_lines(terminal.stdout) == [] and _command_lines(terminal.stderr) == []
    github = hostile_review["github"]
    commands = _command_lines(github.stdout)
    assert commands and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in commands)
    assert "file=a%0A%3A%3Astop-commands%3A%3Atok%0A.py" in github.stdout  # GitHub's property escaping
    assert _command_lines(github.stderr) == []


def test_markdown_and_the_job_summary_show_the_changes_names_and_lines_as_text(hostile_review):
    from markdown_it import MarkdownIt

    for text in (hostile_review["markdown"], hostile_review["summary"]):
        html = MarkdownIt("commonmark").enable("table").render(text)
        assert "<img" not in html and "</details>" not in html and "<a " not in html
        assert "&lt;img/src=x/onerror=alert(1)&gt;" in html  # the branch name, shown as text
        assert "&lt;img src=x onerror=alert(1)&gt;" in html  # the test id
        assert "<code>return eval(str(x))  # `&lt;img src=x onerror=alert(2)&gt;</code>" in html
        # per review (each run appends to the summary): the header and the five dimensions, none broken
        assert html.count("<tr>") == 6 * html.count("<h1>") and html.count("<h1>") >= 1


def test_the_models_text_cannot_end_the_table_or_the_details_of_a_markdown_report():
    """The model's words reach the report through the same helper (here without a CLI run: a scripted
    model's finding only counts after its check, and what is rendered is the same finding)."""
    from markdown_it import MarkdownIt

    from acode.review.models import Decision, DimensionResult, Finding, ReviewResult
    from acode.review.reporting.report import render_markdown

    said = "page 1 is skipped\n</details>\n\n| forged | row |\n<img src=x onerror=alert(3)> [see](http://127.0.0.1/)"
    finding = Finding(dimension="code_quality", source="model", rule="review/code_quality\n# heading",
                      severity="high", message=said, file="pages.py", line=3, quote="start = `x` <b>",
                      suggestion=said, confidence=0.9, status="confirmed")
    result = ReviewResult(
        decision=Decision(verdict="REJECTED", strategy="findings", reasons=[said]),
        dimensions=[DimensionResult(name="code_quality", level="poor", explanation=said, findings=[finding])],
        model="scripted", target="branch", base_ref="main", head_ref="feature", head_sha="abc123",
        context_hash="c" * 64)
    html = MarkdownIt("commonmark").enable("table").render(render_markdown(result))
    assert "<img" not in html and "</details>" not in html and "<a " not in html and "<b>" not in html
    assert html.count("<tr>") == 2 and html.count("<h1>") == 1 and "forged" in html


# --- item 12: what acode stores is its owner's only ---------------------------------------------------
def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_mode & 0o777 for p in root.rglob("*") if p.is_file()}


def test_the_database_and_saved_outputs_are_created_and_kept_private(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".acode").mkdir(parents=True)
    git(repo, "init", "-q")
    key = FAKE_KEYS["openai"]
    script = tmp_path / "script.yml"
    shell = {"tool": "run_shell_command", "arguments": {"command": "echo KEY=$ACODE_API_KEY; seq 1 3000"}}
    script.write_text(yaml.safe_dump([shell, "done"]))

    def run() -> subprocess.CompletedProcess:
        env = {**os.environ, "ACODE_API_KEY": key, "ACODE_MODEL__SCRIPT": str(script),
               "ACODE_NEXT_SPEAKER__ENABLED": "false"}
        return subprocess.run([sys.executable, "-m", "acode", "-p", "show the key", "--backend", "scripted",
                               "--approval-mode", "yolo"], cwd=repo, env=env, capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL, check=False,
                              preexec_fn=lambda: os.umask(0o022))  # the usual umask: new files 0644

    assert run().returncode == 0
    stored = _modes(repo / ".acode")
    assert stored["acode.db"] == 0o600 and any(name.startswith("outputs/") for name in stored)
    assert {name: mode for name, mode in stored.items() if mode != 0o600} == {".gitignore": 0o644}
    assert key.encode() not in (repo / ".acode" / "acode.db").read_bytes()

    (repo / ".acode" / "acode.db").chmod(0o644)  # made by an older acode: tightened when opened
    (repo / ".acode" / "acode.db-wal").write_bytes(b"")
    (repo / ".acode" / "acode.db-wal").chmod(0o644)
    assert run().returncode == 0
    assert (repo / ".acode" / "acode.db").stat().st_mode & 0o777 == 0o600
    assert all(mode == 0o600 for name, mode in _modes(repo / ".acode").items() if name.startswith("acode.db"))


def test_logs_appended_to_are_created_private_and_tightened(tmp_path):
    from acode.fsutil import open_private

    old = os.umask(0o022)
    try:
        with open_private(tmp_path / "new.log") as log:
            log.write("a prompt\n")
        (tmp_path / "old.log").write_text("before\n")
        assert (tmp_path / "old.log").stat().st_mode & 0o777 == 0o644
        with open_private(tmp_path / "old.log") as log:
            log.write("an output\n")
    finally:
        os.umask(old)
    assert _modes(tmp_path) == {"new.log": 0o600, "old.log": 0o600}
    assert (tmp_path / "old.log").read_text() == "before\nan output\n"
