"""Helpers for review tests: git repositories with a change on a branch, and scripted reviewer answers."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

from acode.llm.types import Completion, TokenLogprob

SOUND = '''def page(items, number, size=10):
    """Page ``number`` (starting at 1) of ``items``."""
    start = (number - 1) * size
    return items[start : start + size]
'''

BUGGY = '''def page(items, number, size=10):
    """Page ``number`` (starting at 1) of ``items``."""
    start = number * size
    return items[start : start + size]
'''


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def repo_with_branch(path: Path, before: dict[str, str], after: dict[str, str | None], *,
                     message: str = "Change page", base: str = "main") -> Path:
    """``base`` holds ``before``; the checked-out branch ``feature`` applies ``after`` (None deletes)."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", base)
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "Dev")
    git(path, "config", "commit.gpgsign", "false")
    write(path, before)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    git(path, "switch", "-q", "-c", "feature")
    write(path, after)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message)
    return path


def ci_clone(repo: Path, tmp_path: Path) -> Path:
    """What a CI job has: origin is the project, the clone is shallow (depth 1) and HEAD is the pull
    request's commit, detached. The base branch is not in the clone."""
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(origin)], check=True)
    clone = tmp_path / "job"
    subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "feature", f"file://{origin}",
                    str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", "HEAD")
    for key, value in (("user.email", "ci@example.com"), ("user.name", "CI")):
        git(clone, "config", key, value)
    return clone


def write(root: Path, files: dict[str, str | None]) -> None:
    for name, text in files.items():
        target = root / name
        if text is None:
            target.unlink()
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def yes_no(p_yes: float) -> Completion:
    """A one-token check answer whose logprobs give P(yes) = ``p_yes``."""
    p_yes = min(max(p_yes, 1e-6), 1 - 1e-6)
    top = {"Yes": math.log(p_yes), "No": math.log(1 - p_yes)}
    token = "Yes" if p_yes >= 0.5 else "No"
    return Completion(text=token, logprobs=[TokenLogprob(token=token, logprob=top[token], top=top)])


# the intent question's four answers (two wordings of "does it ask to change what the code does?", then two
# of "does it say what the code does stays the same?"): a behaviour change is asked for, so each difference
# goes on to the question of which outcome is right (judging.intent_question)
ASKS_CHANGE = [yes_no(0.9), yes_no(0.9), yes_no(0.1), yes_no(0.1)]


def finding(line: str, problem: str = "wrong", severity: str = "high", number: int = 3,
            file: str = "pages.py") -> dict:
    """A proposed finding; line 3 of pages.py is the changed line of SOUND -> BUGGY."""
    return {"file": file, "line_number": number, "line": line, "problem": problem, "severity": severity,
            "suggestion": "fix it"}


def reviewer(proposals: dict[str, list[dict]] | None = None, p_yes: float = 0.9, *,
             default: list[dict] | None = None):
    """A scripted-model step that answers like a reviewer: findings per dimension (by the task text),
    and ``yes_no(p_yes)`` for every check question."""
    proposals = proposals or {}

    def answer(messages, tools, schema):
        last = "\n".join(m.content for m in messages if m.role == "user")  # re-asks keep the task
        if schema is None:
            return yes_no(p_yes)
        for name, items in proposals.items():
            if f"for {name.replace('_', ' ')}" in last:
                return {"json": {"findings": items}}
        return {"json": {"findings": default or []}}

    return answer


def dump(data) -> str:
    return json.dumps(data)
