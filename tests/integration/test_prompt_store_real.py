"""The KV state of a system prompt kept on disk (acode.llm.prefix_store) with the real 0.5B model: a second
process reads the prompt's system part from the store instead of evaluating it, and answers exactly as
the first did."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from acode.llm.kv_cache import CHUNK

pytestmark = pytest.mark.real_model

ASK = """
import json, sys
from acode.config.model import ModelSettings
from acode.llm.factory import build_model
from acode.llm.types import Message
from acode.pipeline.models import Plan

settings = ModelSettings(name=sys.argv[1], context_window=4096, prompt_cache_dir=sys.argv[2])
rules = " ".join(f"Rule {n}: name the file and the function." for n in range(30))
system = "You plan small code changes. " + rules
messages = [Message.system(system), Message.user("Request: add is_even(n) to util.py")]
completion = build_model(settings).complete(messages, schema=Plan.model_json_schema(), max_tokens=40)
print(json.dumps({"text": completion.text, **completion.usage.model_dump()}))
"""


def ask_in_a_new_process(model: str, folder) -> dict:
    done = subprocess.run([sys.executable, "-c", ASK, model, str(folder)], capture_output=True, text=True,
                          timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_next_process_reads_the_system_prompt_from_the_store_and_answers_the_same(tmp_path,
                                                                                    real_model_settings):
    first = ask_in_a_new_process(real_model_settings.name, tmp_path)
    assert first["prompt_tokens_reused"] == 0 and first["prompt_tokens_evaluated"] == first["prompt_tokens"]
    assert list(tmp_path.glob("*.kv")), "the system part was not stored"
    second = ask_in_a_new_process(real_model_settings.name, tmp_path)
    # the schema's explanation is part of the system message: all of it but the last partial chunk
    assert second["prompt_tokens_reused"] >= 5 * CHUNK
    assert second["prompt_tokens_reused"] + second["prompt_tokens_evaluated"] == second["prompt_tokens"]
    assert second["text"] == first["text"]  # the stored state is what an evaluation computes


def test_a_stored_state_that_does_not_load_is_evaluated_instead(tmp_path, real_model_settings):
    first = ask_in_a_new_process(real_model_settings.name, tmp_path)
    for stored in tmp_path.glob("*.kv"):
        stored.write_bytes(stored.read_bytes()[: stored.stat().st_size // 2])  # cut short
    again = ask_in_a_new_process(real_model_settings.name, tmp_path)
    assert again["prompt_tokens_reused"] == 0 and again["text"] == first["text"]
