"""The events of ``acode -p "..." --output-format stream-json``: one JSON object per line on stdout,
written and flushed the moment it happens, so a script can follow a run as it goes.

    init         session id, model, backend (first line)
    message      the user's prompt, then the assistant's text (streamed pieces have delta=true)
    tool_use     a tool call the model asked for (before approval and before it runs)
    tool_result  how that call ended: status success/error, the decision, its output
    error        a warning (an invalid answer the model is asked to redo) or an error (the run stopped)
    result       the final answer, the exit status and the run's stats (last line)

The JSON Schema of these events ships in the package (``schemas/stream-json.schema.json``, generated
from the models below by ``python -m acode.cli.stream_events``); every field is documented there.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

SCHEMA_FILE = Path(__file__).parent / "schemas" / "stream-json.schema.json"


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class _Event(BaseModel):
    # the schema describes what is written: every field is always present
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    timestamp: str = Field(default_factory=now, description="ISO 8601 time (UTC) the event was written")


class InitEvent(_Event):
    type: Literal["init"] = "init"
    session_id: str = Field(description="resume it with `acode -r <session_id>`")
    model: str
    backend: Literal["embedded", "openai", "scripted", "none"]
    approval_mode: str
    cwd: str
    version: str = Field(description="acode's version")


class MessageEvent(_Event):
    type: Literal["message"] = "message"
    role: Literal["user", "assistant"]
    content: str
    delta: bool = Field(False, description="true: a streamed piece; the pieces of one answer concatenate")


class ToolUseEvent(_Event):
    type: Literal["tool_use"] = "tool_use"
    tool_name: str
    tool_id: str
    parameters: dict[str, Any]


class ToolResultEvent(_Event):
    type: Literal["tool_result"] = "tool_result"
    tool_id: str
    tool_name: str
    status: Literal["success", "error"]
    decision: Literal["allowed", "denied", "invalid", "repeated", "cancelled"]
    output: str = Field(description="what the model was given")
    error: str | None = None
    seconds: float


class ErrorEvent(_Event):
    type: Literal["error"] = "error"
    severity: Literal["warning", "error"]
    message: str
    code: str | None = Field(None, description="ACODE-<AREA>-<NNN> when the error has one")
    hint: str | None = Field(None, description="how to fix it, when the error has a hint")


class Stats(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    turns: int = Field(description="model calls")
    tool_calls: int
    duration_seconds: float
    model_seconds: float
    tool_seconds: float
    input_tokens: int
    input_tokens_cached: int = Field(description="prompt tokens reused from the model's cache")
    output_tokens: int


class ResultEvent(_Event):
    type: Literal["result"] = "result"
    status: Literal["success", "error"]
    session_id: str
    answer: str
    stop_reason: str = Field(description="answer | max_turns | timeout | format_errors | interrupted | ...")
    message: str = Field("", description="why the run stopped, when it did not end with an answer")
    exit_code: int
    stats: Stats | None = None


StreamEvent = Annotated[
    InitEvent | MessageEvent | ToolUseEvent | ToolResultEvent | ErrorEvent | ResultEvent,
    Field(discriminator="type"),
]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(StreamEvent)


def json_schema() -> dict[str, Any]:
    schema = _ADAPTER.json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://acode.dev/schemas/stream-json.schema.json",
        "title": "acode stream-json event",
        "description": "One line of `acode -p ... --output-format stream-json`.",
        **schema,
    }


def shipped_schema() -> dict[str, Any]:
    return json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))


def line(event: BaseModel) -> str:
    """The event as one JSON line, every string through the secret redaction (as ``--json``)."""
    from acode.secrets import redact_data

    return json.dumps(redact_data(event.model_dump(mode="json")), ensure_ascii=False)


if __name__ == "__main__":  # regenerate the shipped schema
    SCHEMA_FILE.parent.mkdir(parents=True, exist_ok=True)
    SCHEMA_FILE.write_text(json.dumps(json_schema(), indent=2) + "\n", encoding="utf-8")
    print(SCHEMA_FILE)
