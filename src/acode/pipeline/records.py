"""The one writer of a run's record files (.acode/runs/<session>/: plan_v<N>.md/json, state.json,
step_<i>_attempt_<n>.json, summary.json): everything passes through acode.secrets first, so no secret
that a task, a plan, a tool output or a model answer carried is stored. The event log (events.py)
redacts each line the same way."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acode.fsutil import atomic_write_json, atomic_write_text
from acode.secrets import redact, redact_data


def write_record_json(path: Path, data: Any) -> None:
    atomic_write_json(path, redact_data(json.loads(json.dumps(data, default=str))))


def write_record_text(path: Path, text: str) -> None:
    atomic_write_text(path, redact(text))
