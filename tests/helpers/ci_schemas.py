"""The format rules of the reports CI systems read, as their documentation states them (for tests)."""

from __future__ import annotations

import re

# GitLab's Code Quality report, as its documentation states it: an array of Code Climate issues, each with a
# description, check_name, fingerprint, a severity from five names, and location.path + location.lines.begin.
GITLAB_CODE_QUALITY = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["description", "check_name", "fingerprint", "severity", "location"],
        "properties": {
            "description": {"type": "string", "minLength": 1},
            "check_name": {"type": "string", "minLength": 1},
            "fingerprint": {"type": "string", "minLength": 1},
            "severity": {"enum": ["info", "minor", "major", "critical", "blocker"]},
            "location": {
                "type": "object", "required": ["path", "lines"],
                "properties": {"path": {"type": "string"},
                               "lines": {"type": "object", "required": ["begin"],
                                         "properties": {"begin": {"type": "integer", "minimum": 1}}}},
            },
        },
    },
}

# reviewdog's Diagnostic Format (rdjson), from its protocol definition: diagnostics with a message, a
# location (path, optional range of 1-based positions), a severity name, an optional code and optional
# suggestions (a range and the text that replaces it).
_POSITION = {"type": "object", "required": ["line"], "additionalProperties": False,
             "properties": {"line": {"type": "integer", "minimum": 1},
                            "column": {"type": "integer", "minimum": 1}}}
_RANGE = {"type": "object", "required": ["start"], "properties": {"start": _POSITION, "end": _POSITION}}
RDJSON = {
    "type": "object", "required": ["diagnostics"],
    "properties": {
        "source": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"},
                                                                           "url": {"type": "string"}}},
        "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
        "diagnostics": {"type": "array", "items": {
            "type": "object", "required": ["message", "location"],
            "properties": {
                "message": {"type": "string", "minLength": 1},
                "location": {"type": "object", "required": ["path"],
                             "properties": {"path": {"type": "string"}, "range": _RANGE}},
                "suggestions": {"type": "array", "items": {
                    "type": "object", "required": ["range", "text"], "additionalProperties": False,
                    "properties": {"range": _RANGE, "text": {"type": "string"}}}},
                "severity": {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO"]},
                "code": {"type": "object", "required": ["value"],
                         "properties": {"value": {"type": "string"}}},
                "original_output": {"type": "string"},
            },
        }},
    },
}

# GitHub's workflow command syntax: ::level key=value,...::message, with %, CR, LF escaped in the message
# and also ':' and ',' in property values.
_PROPERTY = r"[a-zA-Z]+=[^,:\r\n]*"
GITHUB_COMMAND = re.compile(rf"^::(error|warning|notice)(?: ({_PROPERTY}(?:,{_PROPERTY})*))?::([^\r\n]*)$")
