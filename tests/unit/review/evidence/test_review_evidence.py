from __future__ import annotations

from tests.helpers.review_fakes import repo_with_branch

from acode.review.change.git_context import branch_context
from acode.review.evidence.gathering import gather_evidence, ruff_findings
from acode.secrets import REDACTED, find_secrets, redact, redact_data
from acode.test_files import is_test_path


def test_secrets_are_found_and_redacted_but_placeholders_and_env_lookups_are_not():
    text = 'password = "hunter2hunter2"\ntoken = os.environ["TOKEN"]\napi_key = "changeme"\nkey = "AKIAABCDEFGHIJKLMNOP"'
    assert [s.kind for s in find_secrets(text)] == ["secret-keyword", "aws-access-key"]
    assert redact(text).count(REDACTED) == 2 and "hunter2" not in redact(text)
    assert redact_data({"a": ["ghp_" + "a" * 36], "n": 3}) == {"a": [REDACTED], "n": 3}


def test_is_test_path():
    assert all(map(is_test_path, ["tests/test_a.py", "test_a.py", "pkg/a_test.go", "web/a.spec.ts"]))
    assert not any(map(is_test_path, ["src/a.py", "contest.py"]))


def test_evidence_from_a_branch(tmp_path):
    before = {"app.py": "import os\n\n\ndef run(cmd):\n    return os.getcwd()\n"}
    after = {"app.py": (
        "import os\nimport subprocess\n\n\ndef run(cmd):\n"
        "    subprocess.run(cmd, shell=True)\n"
        "    password = \"s3cretvalue!\"\n"
        "    return undefined_name\n"
    )}
    repo = repo_with_branch(tmp_path / "r", before, after)
    evidence = gather_evidence(branch_context(repo))
    rules = {(f.rule, f.line) for f in evidence.findings}
    assert ("ruff/S602", 6) in rules
    assert ("secret/secret-keyword", 7) in rules
    assert ("ruff/F821", 8) in rules  # undefined name, on a changed line
    assert ("tests/not-touched", None) in rules
    secret = next(f for f in evidence.findings if f.rule.startswith("secret/"))
    assert "s3cretvalue" not in secret.quote and secret.severity == "critical" and secret.source == "secrets"
    ruff = next(f for f in evidence.findings if f.rule == "ruff/F821")
    assert (ruff.file, ruff.source, ruff.severity) == ("app.py", "ruff", "high")


def test_ruff_reports_only_changed_lines(tmp_path):
    before = {"m.py": "import json\n\nx = 1\n"}  # unused import already on main
    after = {"m.py": "import json\n\nx = 2\nimport sys\n"}
    repo = repo_with_branch(tmp_path / "r", before, after)
    found = {(f.rule, f.line) for f in ruff_findings(branch_context(repo))}
    assert ("ruff/F401", 4) in found and ("ruff/F401", 1) not in found


def test_touching_tests_clears_the_untested_finding(tmp_path):
    repo = repo_with_branch(tmp_path / "r", {"a.py": "x = 1\n"}, {"a.py": "x = 2\n", "tests/test_a.py": "def test(): pass\n"})
    assert not [f for f in gather_evidence(branch_context(repo)).findings if f.rule == "tests/not-touched"]


def _long_module(functions: int) -> str:
    return "".join(f"def helper_{i}(value):\n    return value + {i}\n\n\n" for i in range(functions))


def test_evidence_reads_every_added_line_past_the_cut(tmp_path):
    tail = ('import os\n\n\ndef install(url):\n    os.system("curl " + url + " | sh")\n'
            'AWS_KEY = "AKIAABCDEFGHIJKLMNOP"\n')
    repo = repo_with_branch(tmp_path / "r", {"a.py": "X = 1\n"}, {"a.py": "X = 1\n", "big.py": _long_module(300) + tail})
    context = branch_context(repo, max_diff_chars=10_000)
    big = next(f for f in context.files if f.path == "big.py")
    assert big.truncated and "os.system" not in big.diff and "os.system" in big.whole_diff
    rules = {(f.rule, f.file) for f in gather_evidence(context).findings}
    assert ("ruff/S605", "big.py") in rules and ("secret/aws-access-key", "big.py") in rules


def test_a_first_added_line_over_the_limit_does_not_make_the_file_look_empty(tmp_path):
    line = "DATA = " + repr("x" * 20_000) + "\n"
    repo = repo_with_branch(tmp_path / "r", {"a.py": "X = 1\n"}, {"a.py": "X = 1\n", "blob.py": line})
    blob = next(f for f in branch_context(repo, max_diff_chars=2_000).files if f.path == "blob.py")
    assert blob.truncated and "\n+DATA = 'xxx" in blob.diff and "line cut" in blob.diff
    assert len(blob.diff) < 2_500
