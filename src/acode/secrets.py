"""Finding and redacting secrets with detect-secrets' plugins (AWS keys, private keys, tokens of known
services, keyword assignments such as ``password: ...``, high-entropy quoted strings).

Two calls make the API: ``find_secrets(text, path=None)`` lists every secret (line, kind, span) and
``redact(text)`` hides them; ``redact_data`` does the same for every string in nested JSON-like data.
Every place acode writes (run files, the session tables, ``--json`` output, reviews) goes through
``redact_data`` / ``redact`` once, in the store or writer, not at each caller.

The plugins are called directly (``analyze_string``): no detect-secrets global settings are touched and
nothing is verified over the network. The library's heuristic filters (indirect references such as
``secret = get_secret()``, ``$VAR``, templates, sequences, UUIDs) and a short placeholder list drop
obvious non-secrets. The text's kind decides how keyword assignments are read, like detect-secrets does:
for a source file (``path`` ending in .py, .js, .go, ...) the value must be quoted; for anything else (no
path, ``.env``, YAML, INI, shell, logs, model output) ``DB_PASSWORD=value`` and ``password: value`` count
too. A PEM private key is hidden from its BEGIN line through its END line (the body included).
Shapes detect-secrets has no plugin for (HTTP ``Authorization`` values, OpenAI project, Anthropic, Hugging
Face, Google and GitHub fine-grained keys) come from ``acode.secret_shapes``.
Not used: the public-IP plugin (an address is not a secret) and the hex-entropy plugin (it cannot tell a
git commit id from a hex token; quoted base64-entropy strings are still found).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from acode.secret_shapes import shape_spans

REDACTED = "[REDACTED]"

_SKIPPED_PLUGINS = {"IPPublicDetector", "HexHighEntropyString", "KeywordDetector"}  # keyword: see below
# Unquoted words after ``password:`` in code that are types or syntax, not values.
_CODE_WORDS = re.compile(
    r"^(?:str|bytes|int|bool|float|Any|SecretStr|Optional|None|self)\b|[:;{(]$|\) ->|^[\w.]+\("
)
# An unquoted name that itself names a secret (``key = settings.api_key``, ``API_KEY_ENV: ACODE_API_KEY``)
# is a reference to one, not its value.
_REFERENCE = re.compile(r"(?i)^[a-z_][\w.]*,?$")
_REFERENCE_WORD = re.compile(r"(?i)key|pass|pwd|secret|token|env")
# Values that are obviously not secrets (placeholders people write in examples and configs).
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|changeme|change_me|example\w*|dummy\w*|placeholder\w*|your[_-]\w+|none|null|"
    r"true|false|yes|no|on|off|redacted|secret|password|<[^>]*>|\{\{.*\}\}|%\(\w+\)s)$"
)
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")
_MAX_LINE = 20_000  # longer lines are scanned for keywords in pieces of this size
_NEWLINE = re.compile("\n")
_CACHED_TEXT = 64_000  # redact() remembers the results for texts up to this size


@dataclass(frozen=True)
class Secret:
    """One secret: its 1-based line, its kind (``aws-access-key``, ``secret-keyword``, ...) and the
    character span ``start:end`` in the text that must be hidden."""

    line: int
    kind: str
    start: int
    end: int


def find_secrets(text: str, path: str | None = None) -> list[Secret]:
    """Every secret in ``text`` without overlaps, in order. ``path`` (when the text is one file's
    content) selects how strictly keyword assignments are read, see the module docstring."""
    if not text:
        return []
    starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]  # offset of each line
    found = [
        Secret(bisect.bisect_right(starts, start), kind, start, end)
        for kind, start, end in _spans(text, path)
    ]
    found.sort(key=lambda s: (s.start, -s.end))
    kept: list[Secret] = []
    for secret in found:
        if kept and secret.start < kept[-1].end:
            continue
        kept.append(secret)
    return kept


def redact(text: str, path: str | None = None) -> str:
    """``text`` with every secret replaced by [REDACTED]."""
    if not text or not isinstance(text, str):
        return text
    if len(text) <= _CACHED_TEXT:  # stores save the same strings again and again (state.json, history)
        return _redact_cached(text, path)
    return _redact(text, path)


@lru_cache(maxsize=4096)
def _redact_cached(text: str, path: str | None) -> str:
    return _redact(text, path)


def _redact(text: str, path: str | None) -> str:
    out, last = [], 0
    for secret in find_secrets(text, path):
        out.append(text[last : secret.start])
        out.append(REDACTED)
        last = secret.end
    out.append(text[last:])
    return "".join(out)


def redact_data(value: Any) -> Any:
    """Redact every string inside nested dicts / lists / tuples (JSON that is stored or printed). Keys
    are kept; tuples come back as lists (as JSON would)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {key: redact_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(item) for item in value]
    return value


# --- internals -------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _plugins() -> list[tuple[str, Any]]:
    """detect-secrets' plugins (imported lazily: the library pulls in requests)."""
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class

    plugins = []
    for secret_type, cls in get_mapping_from_secret_type_to_class().items():
        if cls.__name__ not in _SKIPPED_PLUGINS:
            plugins.append((_slug(secret_type), cls()))
    return plugins


# Names detect-secrets' keyword list lacks that acode has always hidden: tokens (``GITHUB_TOKEN=...``,
# ``access_token: ...``: names that end in "token"; not ``tokens``, ``token_type``, ``tokenizer``) and
# access keys.
_EXTRA_KEYWORDS = (r"token(?![A-Za-z_])", r"access_?key")


@lru_cache(maxsize=1)
def _keyword() -> tuple[dict, dict, dict]:
    """The keyword plugin's regex tables (quoted values, config style, by file type), rebuilt from the
    library's own patterns with the extra names added to its list."""
    from detect_secrets.plugins import keyword

    words = "|".join((*keyword.DENYLIST, *_EXTRA_KEYWORDS))
    pattern = f"({words}){keyword.AFFIX_REGEX}"

    def widen(table: dict) -> dict:
        return {
            re.compile(regex.pattern.replace(keyword.DENYLIST_REGEX, pattern), regex.flags): group
            for regex, group in table.items()
        }

    by_type = {filetype: widen(table) for filetype, table in keyword.REGEX_BY_FILETYPE.items()}
    return (
        widen(keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP),
        widen(keyword.CONFIG_DENYLIST_REGEX_TO_GROUP),
        by_type,
    )


@lru_cache(maxsize=64)
def _keyword_rules(path: str | None) -> dict:
    """The keyword regexes detect-secrets uses for this kind of file; config-style for anything that is
    not a known source file."""
    from detect_secrets.util.filetype import FileType, determine_file_type

    quoted, config, by_type = _keyword()
    if not path:
        return config
    filetype = determine_file_type(path)
    if filetype in (FileType.OTHER, FileType.EXAMPLE):
        return config
    return by_type.get(filetype, quoted)


def _heuristic() -> Any:
    from detect_secrets.filters import heuristic

    return heuristic


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _spans(text: str, path: str | None) -> list[tuple[str, int, int]]:
    """(kind, start, end) of every secret in ``text``. The plugins' patterns never cross a line, so they
    run over the whole text at once; the keyword regexes run only on lines naming a secret word."""
    from detect_secrets.plugins.base import RegexBasedDetector

    spans: list[tuple[str, int, int]] = []
    for kind, plugin in _plugins():
        if isinstance(plugin, RegexBasedDetector):
            for regex in plugin.denylist:
                for match in regex.finditer(text):
                    start, end = _match_span(match)
                    if kind == "private-key":
                        start, end = _pem_block(text, match.start())
                    spans.append((kind, start, end))
            continue
        for match in plugin.regex.finditer(text):  # the entropy plugin: quoted strings of its alphabet
            value = match.group(2)
            if plugin.calculate_shannon_entropy(value) <= plugin.entropy_limit or REDACTED in value:
                continue
            if not (_heuristic().is_sequential_string(value) or _heuristic().is_potential_uuid(value)):
                spans.append((kind, match.start(2), match.end(2)))
    spans += shape_spans(text)  # what detect-secrets has no plugin for
    seen: set[int] = set()
    for hit in _keyword_names().finditer(text):
        begin = text.rfind("\n", 0, hit.start()) + 1
        if begin in seen:
            continue
        seen.add(begin)
        stop = text.find("\n", hit.start())
        line = text[begin : stop if stop >= 0 else len(text)].rstrip("\r")
        for piece in range(0, len(line), _MAX_LINE):  # very long lines in pieces, a little overlap
            chunk = line[piece : piece + _MAX_LINE + 200]
            for value in _keyword_values(chunk, path):
                spans += [
                    ("secret-keyword", begin + piece + m.start(), begin + piece + m.end())
                    for m in re.finditer(re.escape(value), chunk)
                ]
    return [(kind, start, end) for kind, start, end in spans if end > start]


@lru_cache(maxsize=1)
def _keyword_names() -> re.Pattern[str]:
    """Any of the keyword plugin's names (plus ours): the lines worth the keyword regexes."""
    from detect_secrets.plugins import keyword

    return re.compile("|".join((*keyword.DENYLIST, *_EXTRA_KEYWORDS)), re.IGNORECASE)


def _match_span(match: re.Match[str]) -> tuple[int, int]:
    """What to hide of a plugin's match: its captured value when the pattern captures the value at its
    end (``aws_key = "<value>"``, ``://user:<value>@``), else the whole match without delimiters (a
    token whose pattern captures only its prefix, like ``(ghp|gho)_...``)."""
    if (
        match.re.groups
        and match.group(1)
        and match.start(1) > match.start()
        and match.end() - match.end(1) <= 1
    ):
        return match.span(1)
    start, end = match.span()
    text = match.string
    while start < end and text[start] in " \t\r\n=:\"'":
        start += 1
    while end > start and text[end - 1] in " \t\r\n\"'":
        end -= 1
    return start, end


def _keyword_values(line: str, path: str | None) -> list[str]:
    """Values assigned to secret-sounding names: detect-secrets' keyword regexes (all their matches, not
    only the first), filtered by its heuristics, the placeholder list and, for unquoted values, the
    shapes of code rather than configuration (see ``_code_not_config``)."""
    from detect_secrets.filters import heuristic

    values: list[str] = []
    for regex, group in _keyword_rules(path).items():
        for match in regex.finditer(line):
            value = (match.group(group) or "").strip()
            quoted = bool(match.group(group - 1))
            if not quoted:  # a configuration value is one word: ``password: s3cret and more`` -> s3cret
                value = value.split()[0].rstrip(",;") if value else ""
            if not value or REDACTED in value or _not_a_keyword_secret(value, line, heuristic):
                continue
            if not quoted and _code_not_config(match, group, value):
                continue
            values.append(value)
    return sorted(set(values), key=len, reverse=True)


def _code_not_config(match: re.Match[str], group: int, value: str) -> bool:
    """An unquoted value that reads as code, not as ``KEY=value`` / ``key: value``: a comparison
    (``token == 0x22``), an attribute (``self.token = nextchar``), a call or index, or a short word."""
    between = match.string[match.start() : match.start(group)]
    before = match.string[match.start() - 1] if match.start() > 0 else ""
    return (
        "==" in between
        or "!=" in between
        or re.search(r"\s[-+*/%|&]\s", match.group(group) or "") is not None  # ``Token = Ignore + Plain``
        or before == "."
        or len(value) < 6
        or any(ch in value for ch in "()[]{}")
    )


def _not_a_keyword_secret(value: str, line: str, heuristic: Any) -> bool:
    return (
        not value
        or _PLACEHOLDER.match(value) is not None
        or _CODE_WORDS.search(value) is not None
        or (_REFERENCE.match(value) is not None and _REFERENCE_WORD.search(value) is not None)
        or heuristic.is_indirect_reference(line)
        or heuristic.is_prefixed_with_dollar_sign(value)
        or heuristic.is_templated_secret(value)
        or heuristic.is_not_alphanumeric_string(value)
        or heuristic.is_sequential_string(value)
        or heuristic.is_potential_uuid(value)
    )


def _pem_block(text: str, marker: int) -> tuple[int, int]:
    """A private key from its ``-----BEGIN`` through its END line (or the end of the text)."""
    line_start = text.rfind("\n", 0, marker) + 1
    begin = text.rfind("-----", line_start, marker)
    begin = begin if begin >= 0 else marker
    end = _PEM_END.search(text, marker)
    return begin, end.end() if end else len(text)
