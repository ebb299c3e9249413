"""A record of what `acode review` does on a fixed set of changes, for showing that a refactoring of the
review changed nothing (issue 53): through the CLI (``sys.executable -m acode review``) against a fake
OpenAI-compatible server on 127.0.0.1, every request the review sent (its JSON body: messages, schema,
max_tokens, logprobs ...) with the reply it got, what the command printed and its exit code. The replies
are chosen from the request alone (a structured answer where a schema is asked for, ``yes`` with its
log-probabilities for a yes/no question), so the same code gives the same record. What varies from run to
run (the temporary folder, seconds, measured rates) is written as a placeholder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from tests.helpers.openai_fake_server import Answer, FakeOpenAIServer, Request
from tests.helpers.review_fakes import repo_with_branch

# git's dates fixed, so the commits (and every hash a report shows) are the same in every run
FIXED_DATE = "2026-01-01T00:00:00+00:00"
_SECONDS = re.compile(r"\b\d+(?:\.\d+)? ?s\b")
_RATE = re.compile(r"\b\d+(?:\.\d+)? tokens/s\b")
_TEMPORARY = re.compile(r"(<root>/tmp/)[^/\s\"']+")  # tempfile's folders under the review's TMPDIR
# what a clock measured: the review's seconds and the model's rates (keys of the JSON report)
_MEASURED = re.compile(r"seconds|duration|per_second|_rate$|^rates?$")


@dataclass(frozen=True)
class Scenario:
    before: dict[str, str]
    after: dict[str, str]
    message: str
    reviewer: dict[str, Any]  # .acode/config.yml's reviewer settings
    args: tuple[str, ...]  # after `acode review --base main`
    structured: dict[str, Any] = field(default_factory=lambda: {"findings": []})  # a schema's answer
    yes: bool = True  # the answer to every yes/no question


def reply_to(scenario: Scenario, request: Request) -> Answer | None:
    """The fake model's answer: chosen from the request, never from the order of the calls. Only chat
    completions are answered (a server without a tokenizer endpoint: tokens are estimated)."""
    if not request.path.endswith("/chat/completions"):
        return None
    body = request.json if isinstance(request.json, dict) else {}
    if body.get("response_format"):
        properties = json.dumps(body["response_format"])
        content = json.dumps({"verdict": "APPROVED", "reason": "looks right"} if '"verdict"' in properties
                             else scenario.structured)
        return _chat(content, None)
    if body.get("logprobs"):
        word, other = ("yes", "no") if scenario.yes else ("no", "yes")
        return _chat(word, [{"token": word, "logprob": -0.2}, {"token": other, "logprob": -1.8}])
    return _chat("OK", None)


def _chat(content: str, top: list[dict] | None) -> Answer:
    choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": content},
                              "finish_reason": "stop"}
    if top:
        choice["logprobs"] = {"content": [{"token": top[0]["token"], "logprob": top[0]["logprob"],
                                           "top_logprobs": top}]}
    return Answer(path="/chat/completions", json={
        "id": "x", "object": "chat.completion", "model": "m", "choices": [choice],
        "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51}})


def _content(answer: Answer | None) -> str | None:
    return None if answer is None else answer.json["choices"][0]["message"]["content"]


def record_review(root: Path, scenario: Scenario) -> dict[str, Any]:
    """Review ``scenario``'s change in a repository under ``root``; what was asked, answered and printed."""
    server = FakeOpenAIServer(respond=lambda request: reply_to(scenario, request))
    try:
        git_env = {"GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
        saved = {k: os.environ.get(k) for k in git_env}
        os.environ.update(git_env)
        try:
            repo = repo_with_branch(root / "repo", scenario.before, scenario.after, message=scenario.message)
        finally:
            for k, v in saved.items():
                os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
        config = {"model": {"backend": "openai", "base_url": server.url, "name": "m"},
                  "reviewer": scenario.reviewer}
        (repo / ".acode").mkdir()
        (repo / ".acode" / "config.yml").write_text(yaml.safe_dump(config))
        for folder in ("home", "tmp"):
            (root / folder).mkdir()
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", ""), "LANG": "C.UTF-8",
               "HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "COLUMNS": "120", **git_env}
        args = ["review", "--base", "main", *scenario.args]
        done = subprocess.run([sys.executable, "-m", "acode", *args], cwd=repo, env=env, capture_output=True,
                              text=True, timeout=300, check=False)
        asked = [{"path": r.path, "body": r.json, "reply": _content(reply_to(scenario, r))}
                 for r in server.requests]
    finally:
        server.stop()
    try:
        stdout: Any = json.loads(done.stdout)
    except ValueError:
        stdout = done.stdout
    return stable({"command": args, "exit_code": done.returncode, "stdout": stdout, "stderr": done.stderr,
                   "asked": asked}, str(root))


def stable(value: Any, root: str = "<root>", key: str = "") -> Any:
    """``value`` with what varies from run to run written as placeholders (idempotent)."""
    if isinstance(value, str):
        value = _TEMPORARY.sub(r"\1<tmp>", value.replace(root, "<root>").replace(sys.executable, "<python>"))
        return _SECONDS.sub("<s>", _RATE.sub("<rate>", value))
    if isinstance(value, (int, float)) and not isinstance(value, bool) and _MEASURED.search(key):
        return "<measured>"
    if isinstance(value, dict):
        return {k: stable(v, root, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [stable(v, root, key) for v in value]
    return value
