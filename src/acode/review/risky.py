"""Line rules for risky calls added by a change. Each rule: id, severity, message, suggestion, a regex."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class LineRule:
    rule: str
    severity: str
    message: str
    suggestion: str
    pattern: re.Pattern[str]


_SQL = r"(?:\bSELECT\b.+\bFROM\b|\bINSERT\s+INTO\b|\bUPDATE\b.+\bSET\b|\bDELETE\s+FROM\b|\bWHERE\b)"

RULES: tuple[LineRule, ...] = (
    LineRule(
        "risky/eval-exec", "high", "eval/exec runs arbitrary code built at run time",
        "parse the input explicitly (ast.literal_eval, json.loads) instead of evaluating it",
        re.compile(r"(?<![\w.])(?:eval|exec)\s*\("),
    ),
    LineRule(
        "risky/shell-true", "high", "a subprocess started with shell=True can be injected into",
        "pass the command as a list of arguments without shell=True",
        re.compile(r"\bshell\s*=\s*True\b"),
    ),
    LineRule(
        "risky/os-system", "medium", "os.system/os.popen run a shell command line",
        "use subprocess.run with a list of arguments",
        re.compile(r"\bos\.(?:system|popen)\s*\("),
    ),
    LineRule(
        "risky/pickle-load", "high", "unpickling data can execute code if the data is not trusted",
        "use a data format such as JSON for anything that crosses a trust boundary",
        re.compile(r"\b(?:c?[pP]ickle|dill|joblib|marshal)\.loads?\s*\("),
    ),
    LineRule(
        "risky/yaml-load", "high", "yaml.load without a safe loader can build arbitrary objects",
        "use yaml.safe_load",
        re.compile(r"\byaml\.(?:unsafe_)?load\s*\((?![^)]*SafeLoader)"),
    ),
    LineRule(
        "risky/sql-string", "high", "SQL built by string formatting or concatenation is open to injection",
        "pass values as query parameters (cursor.execute(sql, params)) instead of formatting them in",
        re.compile(
            r"(?i)(?:\bf[\"'][^\"']*" + _SQL + r"[^\"']*\{"  # f-string with a placeholder
            r"|[\"'][^\"']*" + _SQL + r"[^\"']*[\"']\s*(?:%\s*[\w(\[]|\.format\s*\(|\+\s*\w)"  # % / format / +
            r"|\w\s*\+\s*[\"'][^\"']*" + _SQL + r")"  # something + "... WHERE ..."
        ),
    ),
    LineRule(
        "risky/tls-verify-off", "medium", "TLS certificate verification is turned off",
        "keep verification on; point verify= at a CA bundle if a private CA is needed",
        re.compile(r"\bverify\s*=\s*False\b|_create_unverified_context|\bCERT_NONE\b|check_hostname\s*=\s*False"),
    ),
)


def match_rules(text: str) -> list[LineRule]:
    stripped = text.strip()
    if stripped.startswith("#"):
        return []
    return [rule for rule in RULES if rule.pattern.search(text)]
