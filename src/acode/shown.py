"""How text from a model, a tool or a repository is shown, so that it can only ever be read, not obeyed:

- ``visible(text)``: control characters made visible as git shows them (``ESC`` -> ``^[``, ``BEL`` ->
  ``^G``, ``DEL`` -> ``^?``, C1 controls as ``\\u009b``): an answer or a file cannot write the clipboard
  (``ESC]52``), retitle the window (``ESC]0``), clear the screen (``ESC[2J``) or move the cursor over what
  was printed. Newlines and tabs stay; ``\\r\\n`` is a newline. Every console acode prints on applies it
  (acode.cli.common); raw writes to stdout call it. Machine output (JSON) needs nothing: JSON escapes them.
- ``for_terminal(text)``: ``visible`` after the secret redaction (acode.secrets), for every printer of
  text that passed through a session.
- ``workflow_safe(text)``: under GitHub Actions (``GITHUB_ACTIONS=true``) a line that would read as a
  workflow command (``::stop-commands::``, ``::error file=…::``, also after leading blanks, as the runner
  reads them; the legacy ``##[…]`` anywhere) gets its first ``:`` / its ``[`` percent-escaped as GitHub
  escapes command data: a file name or a model's text cannot forge annotations or silence the ones that
  follow. Every console acode prints on applies it (acode.cli.terminal_safety), like ``visible``.
- ``undecodable_escaped(text)``: bytes of a file name that are not UTF-8 (kept by Python as lone
  surrogates, ``bad\\udcff.py``) written as ``\\xff``, which every encoder, the sessions database and the
  model accept; ``undecodable_unescaped`` turns such a name back into the real one for the tools.
"""

from __future__ import annotations

import os
import re

_UNDECODABLE = {0xDC00 + byte: f"\\x{byte:02x}" for byte in range(0x80, 0x100)}
_CONTROLS = {code: f"^{chr(code + 64)}" for code in range(0x20) if code not in (0x09, 0x0A)}
_CONTROLS[0x7F] = "^?"
_CONTROLS.update({code: f"\\u{code:04x}" for code in range(0x80, 0xA0)})
_CONTROLS.update(_UNDECODABLE)
_NEEDS_VISIBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\udc80-\udcff]")
_NEEDS_ESCAPE = re.compile("[\udc80-\udcff]")
_ESCAPED_BYTE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")
_COMMAND_LINE = re.compile(r"(?m)^([ \t]*):(?=:)")


def visible(text: str) -> str:
    """``text`` with its control characters (and undecodable bytes) shown, not acted on."""
    if not isinstance(text, str) or not _NEEDS_VISIBLE.search(text):
        return text
    return text.replace("\r\n", "\n").translate(_CONTROLS)


def for_terminal(text: str) -> str:
    """What a person sees of text from a model, a tool or a repository: secrets hidden, controls shown."""
    from acode.secrets import redact

    return visible(redact(undecodable_escaped(text)))


def under_github_actions() -> bool:
    return os.environ.get("GITHUB_ACTIONS") == "true"


def workflow_safe(text: str, *, line_start: bool = True) -> str:
    """``text`` with no line GitHub's runner would obey as a workflow command; ``line_start``: whether
    ``text`` begins a line (a piece printed after others on the same line does not)."""
    if not isinstance(text, str) or ("::" not in text and "##[" not in text):
        return text
    safe = _COMMAND_LINE.sub(r"\1%3A", text if line_start else "x" + text)
    return (safe if line_start else safe[1:]).replace("##[", "##%5B")


def undecodable_escaped(text: str) -> str:
    if not isinstance(text, str) or not _NEEDS_ESCAPE.search(text):
        return text
    return text.translate(_UNDECODABLE)


def undecodable_unescaped(text: str) -> str:
    """``bad\\xff.py`` -> the name whose byte 0xff is not UTF-8 (as ``os.listdir`` gives it)."""
    return _ESCAPED_BYTE.sub(lambda m: chr(0xDC00 + int(m.group(1), 16)), text)
