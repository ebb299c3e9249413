"""Secret shapes detect-secrets 1.5 (the latest release) has no plugin for, found in free text by
``acode.secrets`` beside its plugins: HTTP ``Authorization`` header values (what actions/checkout persists in
``.git/config``, what ``curl -H`` lines print) and the API keys of services acode's users hold (OpenAI
project and service keys, Anthropic, Hugging Face, Google, GitHub fine-grained tokens). The shapes follow
the providers' documented prefixes, as gitleaks' rules do; each is (kind, pattern, group to hide)."""

from __future__ import annotations

import re

_HEADER = r"""(?i)\b(?:proxy-)?authorization["']?\s*[:=]\s*["']?"""
KEY_SHAPES: tuple[tuple[str, re.Pattern[str], int], ...] = (
    # ``Authorization: Basic <b64>``, ``extraheader = AUTHORIZATION: bearer <token>``, ``"Authorization":
    # "Bearer <token>"``; not ``f"Bearer {token}"`` or ``Bearer $TOKEN`` (no value there, a reference).
    # Without a scheme only a long value holding a digit (not ``authorization: required`` in prose).
    ("http-authorization", re.compile(
        _HEADER + r"(?:basic|bearer|token|negotiate|ntlm)\s+([A-Za-z0-9._~+/-]{8,}=*)"), 1),
    ("http-authorization", re.compile(_HEADER + r"((?=[A-Za-z0-9._~+/-]*\d)[A-Za-z0-9._~+/-]{16,}=*)"), 1),
    ("openai-key", re.compile(r"\bsk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}"), 0),
    ("anthropic-key", re.compile(r"\bsk-ant-(?:api|admin|oat)\d\d-[A-Za-z0-9_-]{20,}"), 0),
    ("openai-key", re.compile(r"\bsk-[A-Za-z0-9]{32,}\b"), 0),
    ("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b"), 0),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,}"), 0),
)


def shape_spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every value of these shapes in ``text``."""
    return [(kind, *match.span(group)) for kind, regex, group in KEY_SHAPES for match in regex.finditer(text)]
