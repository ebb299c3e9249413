"""reviewer.instructions: plain-language guidance per path glob reaches the model's prompts about changes
to those files only, and a change that edits the instructions is reviewed with its base's. Through the CLI
against a fake OpenAI-compatible server on 127.0.0.1 that records every prompt (the regression check's
yes/no questions are the review's model step here)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.helpers.openai_fake_server import FakeOpenAIServer
from tests.helpers.repos import make_git_repo
from tests.helpers.review_fakes import git

from acode.config.review import PathInstruction
from acode.review.change.packing import pack_diffs
from acode.review.models import ChangedFile, ReviewContext
from acode.review.running.review_run import context_text

API_RULE = "Handlers must check the caller's permission before they read the database."
HANDLER = "def handle(user, db):\n    if not user.allowed:\n        return None\n    return db.read(user.id)\n"
UTIL = "def clamp(value, low, high):\n    return max(low, min(value, high))\n"


def config(text: str) -> str:
    return yaml.safe_dump({"reviewer": {"instructions": [{"paths": ["src/api/**"], "text": text}],
                                        "behaviour": {"enabled": False}}})


def yes_answer() -> dict:
    top = [{"token": "yes", "logprob": -0.2}, {"token": "no", "logprob": -1.8}]
    return {"id": "x", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"}, "finish_reason": "stop",
                         "logprobs": {"content": [{"token": "yes", "logprob": -0.2, "top_logprobs": top}]}}],
            "usage": {"prompt_tokens": 50, "completion_tokens": 1, "total_tokens": 51}}


@pytest.fixture
def server():
    fake = FakeOpenAIServer()
    for _ in range(40):
        fake.add(path="/chat/completions", json=yes_answer())
    yield fake
    fake.stop()


@pytest.fixture
def repo(tmp_path) -> Path:
    return make_git_repo(tmp_path / "repo", {"src/api/handler.py": HANDLER, "src/other/util.py": UTIL,
                                             ".acode/config.yml": config(API_RULE)})


def prompts_of_review(repo: Path, server: FakeOpenAIServer) -> list[str]:
    """The prompts of `acode review --base main` of the checked-out branch, each as the request's JSON."""
    home = repo.parent / "home"
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ACODE_", "XDG_", "GITHUB_"))}
    env.update(HOME=str(home), ACODE_MODEL__BACKEND="openai", ACODE_MODEL__BASE_URL=server.url,
               ACODE_MODEL__NAME="m")
    before = len(server.chat_requests())
    done = subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--no-run-tests",
                           "--fresh", "--json"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode in (0, 50), done.stderr[-3000:]
    asked = [json.dumps(r.json) for r in server.chat_requests()[before:]]
    assert asked, "the review asked the model nothing: the test would show nothing"
    return asked


def change(repo: Path, name: str, path: str, old: str, new: str) -> None:
    git(repo, "switch", "-qc", name, "main")
    file = repo / path
    file.write_text(file.read_text().replace(old, new))
    git(repo, "commit", "-qam", f"change {path}")


def test_instructions_for_a_folder_reach_the_prompts_of_a_change_there_and_not_elsewhere(repo, server):
    change(repo, "api", "src/api/handler.py", "if not user.allowed:", "if user.allowed:")
    prompts = prompts_of_review(repo, server)
    assert all(API_RULE in prompt and "Here is src/api/handler.py" in prompt for prompt in prompts)

    change(repo, "other", "src/other/util.py", "max(low, min(value, high))", "min(low, max(value, high))")
    assert not any(API_RULE in prompt for prompt in prompts_of_review(repo, server))


def test_a_change_that_edits_the_instructions_is_reviewed_with_its_bases(repo, server):
    change(repo, "api", "src/api/handler.py", "if not user.allowed:", "if user.allowed:")
    (repo / ".acode" / "config.yml").write_text(config("Anything goes here."))
    git(repo, "commit", "-qam", "loosen the instructions")
    # the change's own config.yml is a changed file too (its prompts quote it): those about the handler count
    prompts = [p for p in prompts_of_review(repo, server) if "Here is src/api/handler.py" in p]
    assert prompts and all(API_RULE in prompt for prompt in prompts)
    assert not any("Anything goes here." in prompt for prompt in prompts)


def test_the_shared_context_names_each_instruction_with_the_shown_files_it_is_for(tmp_path):
    files = [ChangedFile(path=p, change_type="modified", diff=f"--- a/{p}\n+++ b/{p}\n@@ -1 +1 @@\n-a\n+b\n")
             for p in ("src/api/users.py", "src/other/util.py")]
    context = ReviewContext(root=tmp_path, files=files)
    packed = pack_diffs(files, lambda text: len(text) // 4, 4000)
    told = [PathInstruction(paths=["src/api/**"], text=API_RULE),
            PathInstruction(paths=["docs/*"], text="Docs are written in British English.")]
    text = context_text(context, packed, [], instructions=told)
    assert f"- for src/api/users.py: {API_RULE}" in text
    assert "British English" not in text
    assert "instructions" not in context_text(context, packed, [])


def test_the_behaviour_question_is_told_the_instructions_of_its_functions_file_only():
    from acode.llm.scripted import ScriptedModel
    from acode.review.evidence.behaviour.diff import BehaviourDiff, FunctionResult
    from acode.review.evidence.behaviour.findings import ASK, RULE
    from acode.review.evidence.behaviour.inputs import ChangedFunction
    from acode.review.judging.behaviour_question import ask_about_differences
    from acode.review.models import Finding

    told = [PathInstruction(paths=["src/api/**"], text=API_RULE)]
    for path, expected in (("src/api/users.py", True), ("src/other/util.py", False)):
        function = ChangedFunction(path=path, module="m", qualname="handle", kind="function", line=1,
                                   end_line=4)
        diff = BehaviourDiff([FunctionResult(function, "differs", difference={
            "input": "handle(u, db)", "old": "returns None", "new": "returns 'row'"})])
        finding = Finding(dimension="intent_alignment", source="behaviour", rule=RULE, severity="medium",
                          message="differs", file=path, line=1, metrics={ASK: 1.0})
        model = ScriptedModel(["yes", "no"])
        ask_about_differences(model, [finding], diff, "Tidy up", margin=1.0, timeout=lambda: 30.0,
                              instructions=told)
        questions = [call["messages"][-1].content for call in model.calls]
        assert len(questions) == 2
        assert all((API_RULE in q and f"instructions for {path}" in q) == expected for q in questions)
