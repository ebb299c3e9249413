"""The environment a real-model chat test runs acode in."""

from __future__ import annotations

import os

from tests.helpers.one_shot import REAL_MODEL


def real_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "ACODE_MODEL__BACKEND": "embedded",
            "ACODE_MODEL__NAME": REAL_MODEL,
            "ACODE_MODEL__MAX_TOKENS": "200",
            "ACODE_MODEL__CONTEXT_WINDOW": "4096",
            "ACODE_AGENT__MAX_TURNS": "4",
            "ACODE_NEXT_SPEAKER__ENABLED": "false",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm",
            "COLUMNS": "120",
        }
    )
    return env
