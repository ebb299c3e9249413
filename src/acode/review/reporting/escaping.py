"""Text from the change under review or from the model, written into a report so that it can only be read:
every report writer calls these (one place for what each format needs), after the secret redaction.

- Markdown (the report, GitHub's job summary): ``md_text`` for text in a paragraph, list item or table
  cell: HTML (``<img>``, ``</details>``) shown as text, Markdown punctuation escaped (no code, link or
  image), ``|`` escaped for tables and newlines made spaces (a newline would end the table row or the
  list item and start a block of the change's own); ``md_code`` for inline code, fenced with more
  backticks than the text holds, so a backtick in a source line cannot close it; ``md_fenced`` for a
  block of code (a generated test), fenced the same way.
- GitHub workflow commands (``--format github``): ``gh_data`` for a message, ``gh_property`` for a
  property value, GitHub's own escaping (``%`` ``\\r`` ``\\n``, and ``:`` ``,`` in properties).
- Lines a person reads on a GitHub Actions log: ``acode.shown.workflow_safe``.
"""

from __future__ import annotations

import html
import re

from acode.secrets import redact

_NEWLINES = re.compile(r"\r\n|[\r\n\u2028\u2029\x85]")
# what opens code (a lone backtick would pair with the fence of an ``md_code`` span later on the line and
# leave its text raw), a link or image, bold, or a table column anywhere in a line; ``#``, ``-`` or ``1.``
# act only at a line's start, where a value never stands, and ``_`` inside a name makes no emphasis
_MD_PUNCTUATION = re.compile(r"([\\`*\[\]|])")


def md_text(text: object) -> str:
    """``text`` (redacted) as literal Markdown text on one line."""
    flat = html.escape(_NEWLINES.sub(" ", redact(str(text))), quote=False)
    return _MD_PUNCTUATION.sub(r"\\\1", flat)


def md_code(text: object) -> str:
    """``text`` (redacted) as one inline code span: fenced by one backtick more than its longest run."""
    flat = _NEWLINES.sub(" ", redact(str(text)))
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def md_fenced(text: str, language: str = "", *, indent: str = "") -> list[str]:
    """``text`` (redacted) as the lines of a fenced code block, its fence longer than any backtick run in
    it (a generated test quoting the change's values cannot close it)."""
    body = redact(text).splitlines()
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{indent}{fence}{language}", *[f"{indent}{line}" for line in body], f"{indent}{fence}"]


def md_cell(text: object) -> str:
    """``text`` (redacted) in a table cell: as ``md_text`` (which escapes ``|``)."""
    return md_text(text)


def gh_data(text: str) -> str:
    """A workflow command's message, escaped as GitHub's runner reads it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def gh_property(text: str) -> str:
    """A workflow command's property value (``file=``, ``title=``)."""
    return gh_data(text).replace(":", "%3A").replace(",", "%2C")
