"""Intent against behaviour (issue 49), through the CLI on a scripted model: whether the request asks for a
behaviour change is asked of the model both ways (``judging.intent_question``); a difference the behavioural
diff executed counts high under a request that asks for none, whatever its words. The real 0.5B answers
the same question in tests/integration/test_review_behaviour_real.py."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from tests.helpers.review_fakes import git, repo_with_branch

from acode.sandbox import find_sandbox

needs_sandbox = pytest.mark.skipif(find_sandbox()[0] is None, reason="bubblewrap cannot start here")

PORT = '''def parse_port(text: str) -> int:
    text = text.strip()
    if not text:
        return 80
    return int(text)
'''
# the parsing moved into a helper, and the default port changed on the way: parse_port("") was 80, now 8080
MOVED = '''def _cleaned(text: str) -> str:
    return text.strip()


def parse_port(text: str) -> int:
    text = _cleaned(text)
    if not text:
        return 8080
    return int(text)
'''
# the intent question: "does it ask to change what the code does?" in two wordings, then "does it say what
# the code does stays the same?" in two; then, where the difference still waits, the outcome question (old
# outcome first, then new)
NO_CHANGE_ASKED = ["No", "No", "Yes", "Yes"]
CHANGE_ASKED = ["Yes", "Yes", "No", "No"]


def review(tmp_path, message: str, answers: list[str], *args: str) -> tuple[dict, int]:
    repo = repo_with_branch(tmp_path / "repo", {"net.py": PORT}, {"net.py": MOVED}, message=message)
    return _review(tmp_path, repo, answers, *args)


def _review(tmp_path, repo, answers: list[str], *args: str) -> tuple[dict, int]:
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump([{"text": a} for a in answers]))
    (repo / ".acode").mkdir(exist_ok=True)
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump({
        "model": {"backend": "scripted", "script": str(script)},
        "reviewer": {"strategy": "checks_only", "regression": {"method": "off"},
                     "behaviour": {"crosshair_seconds": 0}}}))
    done = subprocess.run([sys.executable, "-m", "acode", "review", *(args or ("--base", "main")), "--json",
                           "--no-run-tests"], cwd=repo, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 50), done.stderr[-3000:]
    return json.loads(done.stdout), done.returncode


def difference(data: dict) -> dict:
    return next(f for f in data["evidence"] if f["rule"] == "behaviour/changed" and "`parse_port(" in f["message"])


@needs_sandbox
def test_a_request_that_promises_no_change_in_words_not_on_the_list_rejects_a_behaviour_difference(tmp_path):
    data, code = review(tmp_path, "Move the parsing into a helper", NO_CHANGE_ASKED)
    found = difference(data)
    assert "parse_port('')" in found["message"] and "returns 80" in found["message"]  # the executed evidence
    assert found["severity"] == "high" and "the request asks for no change of behaviour" in found["message"]
    assert data["behaviour"]["intent"]["verdict"] == "no_change"
    assert data["approved"] is False and code == 50
    # before: the words are not on the list, so the difference waited for the outcome question, which the
    # same four answers could not settle ("No" to the old outcome, "No" to the new): approved


@needs_sandbox
def test_a_behaviour_change_the_request_asks_for_does_not_reject(tmp_path):
    # asked for a change; the outcome question then finds the new outcome right
    data, code = review(tmp_path, "Listen on 8080 when no port is given", CHANGE_ASKED + ["No", "Yes"])
    assert data["behaviour"]["intent"]["verdict"] == "change"
    found = difference(data)
    assert found["status"] == "dismissed" and "finds the new outcome right" in found["message"]
    assert data["approved"] is True and code == 0


@needs_sandbox
def test_framings_that_disagree_fall_back_to_the_word_list_and_the_outcome_question(tmp_path):
    # "yes" to both framings (it asks for a change, and it keeps the behaviour): the answer says nothing
    data, _ = review(tmp_path, "Move the parsing into a helper", ["Yes", "Yes", "Yes", "Yes", "Yes", "No"])
    intent = data["behaviour"]["intent"]
    assert intent["verdict"] == "uncertain" and intent["log_odds"]["asks_change"] > 0
    assert intent["log_odds"]["keeps_behaviour"] > 0
    found = difference(data)
    assert "the request asks for no change" not in found["message"]
    assert "finds the old outcome right" in found["message"]  # decided by the outcome question, as before
    # words on the list decide without the model: nothing waits, so neither question is asked
    tidy, code = review(tmp_path / "tidy", "Tidy up the port parsing", [])
    assert "says it is a tidy" in difference(tidy)["message"] and code == 50
    assert "intent" not in tidy["behaviour"]


@needs_sandbox
def test_a_staged_change_has_no_request_and_none_is_invented(tmp_path):
    repo = repo_with_branch(tmp_path / "repo", {"net.py": PORT}, {"README.md": "ports\n"})
    (repo / "net.py").write_text(MOVED)
    git(repo, "add", "net.py")
    data, _ = _review(tmp_path, repo, ["Yes", "No"], "--staged")  # only the outcome question
    intent = data["behaviour"]["intent"]
    assert intent["verdict"] == "none" and "no request stated" in intent["note"]
    assert "the request asks for no change" not in difference(data)["message"]
