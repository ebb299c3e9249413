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
Not used: the public-IP plugin (an address is not a secret) and the hex-entropy plugin (it cannot tell a
git commit id from a hex token; quoted base64-entropy strings are still found).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

REDACTED = "[REDACTED]"

_SKIPPED_PLUGINS = {"IPPublicDetector", "HexHighEntropyString", "KeywordDetector"}  # keyword: see below
# Unquoted words after ``password:`` in code that are types or syntax, not values.
_CODE_WORDS = re.compile(r"^(?:str|bytes|int|bool|float|Any|SecretStr|Optional|None|self)\b|[:;{(]$|\) ->|^[\w.]+\(")
# An unquoted name that itself names a secret (``key = settings.api_key``, ``API_KEY_ENV: ACODE_API_KEY``)
# is a reference to one, not its value.
_REFERENCE = re.compile(r"(?i)^[a-z_][\w.]*,?$")
_REFERENCE_WORD = re.compile(r"(?i)key|pass|pwd|secret|token|env")
# Values that are obviously not secrets (placeholders people write in examples and configs).
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|changeme|change_me|example\w*|dummy\w*|placeholder\w*|your[_-]\w+|none|null|"
    r"true|false|redacted|secret|password|<[^>]*>|\{\{.*\}\}|%\(\w+\)s)$"
)
_PEM_END = re.compile(r"-----END [A-Z0-9 ]*-----|---- END SSH2 ENCRYPTED PRIVATE KEY ----")
_MAX_LINE = 20_000
_CACHED_TEXT = 64_000  # longer lines are scanned in pieces of this size


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
    found: list[Secret] = []
    offset = 0
    lines = text.splitlines(keepends=True)
    pem_until = -1
    for number, line in enumerate(lines, start=1):
        body = line.rstrip("\r\n")
        if number <= pem_until:
            offset += len(line)
            continue
        for kind, start, end in _scan_line(body, path):
            if kind == "private-key":
                start, end, pem_until = _pem_block(lines, number, body, offset, start)
                found.append(Secret(number, kind, start, end))
                break
            found.append(Secret(number, kind, offset + start, offset + end))
        offset += len(line)
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
# ``access_token: ...``; not ``tokens`` / ``token_count`` / ``tokenizer``) and access keys.
_EXTRA_KEYWORDS = (r"token(?!s|_?count|i[sz])", r"access_?key")


@lru_cache(maxsize=1)
def _keyword() -> tuple[Any, dict, dict, dict]:
    """The keyword plugin, and its regex tables (quoted values, config style, by file type) rebuilt from
    the library's own patterns with the extra names added to its list."""
    from detect_secrets.plugins import keyword

    words = "|".join((*keyword.DENYLIST, *_EXTRA_KEYWORDS))
    pattern = f"({words}){keyword.AFFIX_REGEX}"

    def widen(table: dict) -> dict:
        return {re.compile(regex.pattern.replace(keyword.DENYLIST_REGEX, pattern), regex.flags): group
                for regex, group in table.items()}

    by_type = {filetype: widen(table) for filetype, table in keyword.REGEX_BY_FILETYPE.items()}
    return (keyword.KeywordDetector(), widen(keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP),
            widen(keyword.CONFIG_DENYLIST_REGEX_TO_GROUP), by_type)


@lru_cache(maxsize=64)
def _keyword_rules(path: str | None) -> dict:
    """The keyword regexes detect-secrets uses for this kind of file; config-style for anything that is
    not a known source file."""
    from detect_secrets.util.filetype import FileType, determine_file_type

    _, quoted, config, by_type = _keyword()
    if not path:
        return config
    filetype = determine_file_type(path)
    if filetype in (FileType.OTHER, FileType.EXAMPLE):
        return config
    return by_type.get(filetype, quoted)


def _slug(secret_type: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", secret_type.lower()).strip("-")


def _scan_line(line: str, path: str | None) -> list[tuple[str, int, int]]:
    """(kind, start, end) of the secrets on one line (positions inside the line)."""
    if not line.strip():
        return []
    hits: list[tuple[str, int, int]] = []
    for begin in range(0, len(line), _MAX_LINE):
        piece = line[begin : begin + _MAX_LINE + 200]  # a little overlap so a value on the cut is seen
        hits += [(kind, begin + start, begin + end) for kind, start, end in _spans(piece, path)]
    return hits


def _spans(line: str, path: str | None) -> list[tuple[str, int, int]]:
    from detect_secrets.plugins.base import RegexBasedDetector

    spans: list[tuple[str, int, int]] = []
    for kind, plugin in _plugins():
        if isinstance(plugin, RegexBasedDetector):
            spans += [(kind, *_match_span(m)) for regex in plugin.denylist for m in regex.finditer(line)]
            continue
        for value in set(plugin.analyze_string(line)):  # the entropy plugin: quoted strings
            if plugin.calculate_shannon_entropy(value) > plugin.entropy_limit and REDACTED not in value:
                spans += [(kind, m.start(), m.end()) for m in re.finditer(re.escape(value), line)]
    for value in _keyword_values(line, path):
        spans += [("secret-keyword", m.start(), m.end()) for m in re.finditer(re.escape(value), line)]
    return [(kind, start, end) for kind, start, end in spans if end > start]


def _match_span(match: re.Match[str]) -> tuple[int, int]:
    """What to hide of a plugin's match: its captured value when the pattern captures the value at its
    end (``aws_key = "<value>"``, ``://user:<value>@``), else the whole match without delimiters (a
    token whose pattern captures only its prefix, like ``(ghp|gho)_...``)."""
    if match.re.groups and match.group(1) and match.start(1) > match.start() and match.end() - match.end(1) <= 1:
        return match.span(1)
    start, end = match.span()
    text = match.string
    while start < end and text[start] in " \t=:\"'":
        start += 1
    while end > start and text[end - 1] in " \t\"'":
        end -= 1
    return start, end


def _keyword_values(line: str, path: str | None) -> list[str]:
    """Values assigned to secret-sounding names (detect-secrets' keyword plugin), filtered."""
    from detect_secrets.filters import heuristic

    keyword = _keyword()[0]
    rules = _keyword_rules(path)
    values: list[str] = []
    rest = line
    # The plugin reports the first match of each regex; look again after a hit so that
    # ``a_password=x b_secret=y`` yields both.
    for _ in range(8):
        new = {v.strip() for v in keyword.analyze_string(rest, denylist_regex_to_group=rules) if v}
        new = {v for v in new if REDACTED not in v and not _not_a_keyword_secret(v, rest, heuristic)}
        if not new:
            break
        values += sorted(new, key=len, reverse=True)
        for value in new:
            rest = rest.replace(value, REDACTED)
    return values


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


def _pem_block(lines: list[str], number: int, body: str, offset: int, start: int) -> tuple[int, int, int]:
    """The span of a private key from its BEGIN marker through its END line (or the end of the text)
    and the last line number it covers."""
    begin = body.rfind("-----", 0, start)
    begin = offset + (begin if begin >= 0 else start)
    position = offset
    for index in range(number - 1, len(lines)):
        match = _PEM_END.search(lines[index], 0 if index > number - 1 else start)
        if match:
            return begin, position + match.end(), index + 1
        position += len(lines[index])
    return begin, position, len(lines)
