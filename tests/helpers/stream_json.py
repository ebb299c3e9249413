"""The stream-json events' shipped JSON schema, as a validator."""

from __future__ import annotations

import jsonschema

from acode.cli.stream_events import shipped_schema


def validator():
    return jsonschema.Draft202012Validator(shipped_schema())
