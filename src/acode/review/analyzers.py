"""Ruff as review evidence: maintained, AST-based rules (flake8-bandit ``S``, bugbear ``B``, blind except
``BLE``, pylint warnings ``PLW``, tryceratops ``TRY``, pyflakes ``F`` and syntax errors) run on the old and
the new version of every changed Python file. A finding counts only when it lies on an added line and is
new: the same rule on the same code was not already reported in the base version (moving code, or
touching a line next to an old problem, does not blame the change for it).

``RULES`` is the table from a ruff code to a review dimension and severity, each with the reason it maps
there. Severity decides what a finding does (see ``decision``): ``high`` makes its dimension poor, which
rejects; ``medium`` makes it need work (more than ``thresholds.max_needs_work`` such dimensions reject);
``low`` is reported and only lowers the level to acceptable. ``high`` is kept for patterns that are a
vulnerability or a certain bug wherever they appear in new code; patterns that are often fine (a blind
``except`` at a top level, ``random`` for jitter, ``md5`` for a cache key) are ``medium`` or ``low``, and
``_ESCALATE`` raises a few of them to ``high`` when the line is about a secret.
"""

from __future__ import annotations

import ast
import json
import logging
import re
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from acode.review.models import is_test_path

log = logging.getLogger("acode.review")


@dataclass(frozen=True)
class RuleMap:
    dimension: str
    severity: str
    why: str


def _s(severity: str, why: str) -> RuleMap:
    return RuleMap("safety", severity, why)


def _q(severity: str, why: str) -> RuleMap:
    return RuleMap("code_quality", severity, why)


RULES: dict[str, RuleMap] = {
    # injection (CWE-78, CWE-89, CWE-94, CWE-95)
    "S102": _s("high", "exec() runs code built at run time (CWE-94)"),
    "S307": _s("high", "eval() runs code built at run time (CWE-95); ast.literal_eval or json parse data"),
    "S602": _s("high", "a subprocess with shell=True runs a command line a value can inject into (CWE-78)"),
    "S604": _s("high", "a call with shell=True runs a command line a value can inject into (CWE-78)"),
    "S605": _s("high", "os.system/os.popen with a non-literal command line is open to injection (CWE-78)"),
    "S609": _s("medium", "a shell wildcard lets a file name become an option (CWE-155)"),
    "S608": _s("high", "SQL built from strings (f-string, %, format, +) is open to injection (CWE-89)"),
    "S610": _s("high", "Django extra() with built SQL is open to injection (CWE-89)"),
    "S611": _s("high", "Django RawSQL with built SQL is open to injection (CWE-89)"),
    "S701": _s("high", "Jinja2 with autoescape off renders input as HTML (CWE-79)"),
    "S702": _s("medium", "Mako templates do not escape by default (CWE-79)"),
    "S704": _s("medium", "markup built from a non-literal string is not escaped (CWE-79)"),
    "S308": _s("medium", "mark_safe on non-literal text skips escaping (CWE-79)"),
    # deserialization (CWE-502)
    "S301": _s("high", "unpickling data that crosses a trust boundary can run code (CWE-502)"),
    "S302": _s("high",
               "marshal data that crosses a trust boundary can crash or mislead the interpreter (CWE-502)"),
    "S506": _s("high", "yaml.load without a safe loader builds arbitrary objects (CWE-502)"),
    # transport and crypto (CWE-295, CWE-327, CWE-328, CWE-330)
    "S501": _s("high", "TLS certificate verification is turned off (CWE-295)"),
    "S323": _s("high", "an unverified SSL context accepts any certificate (CWE-295)"),
    "S502": _s("high", "an SSL/TLS protocol version with known breaks (CWE-327)"),
    "S503": _s("medium", "an SSL default that allows broken protocol versions (CWE-327)"),
    "S504": _s("low", "ssl.wrap_socket without a version relies on defaults (CWE-327)"),
    "S505": _s("high", "a cryptographic key too short to resist brute force (CWE-326)"),
    "S507": _s("high", "SSH host keys are accepted without verification (CWE-295)"),
    "S304": _s("high", "a broken cipher (CWE-327)"),
    "S305": _s("high", "ECB mode leaks patterns of the plaintext (CWE-327)"),
    "S303": _s("medium", "MD5/SHA1 are broken for security uses (CWE-328); fine for checksums"),
    "S324": _s("medium",
               "MD5/SHA1 are broken for security uses (CWE-328); pass usedforsecurity=False for checksums"),
    "S311": _s("medium",
               "the random module is predictable (CWE-330); fine for jitter and sampling, not for tokens"),
    # credentials (CWE-798, CWE-259)
    "S105": _s("high", "a password or secret written into the code (CWE-798)"),
    "S106": _s("high", "a password passed as a literal argument (CWE-798)"),
    "S107": _s("high", "a password as a literal default argument (CWE-798)"),
    # files, processes, network (CWE-22, CWE-377, CWE-732, CWE-918, CWE-611)
    "S202": _s("high", "tarfile.extractall without a member filter writes outside the target (CWE-22)"),
    "S103": _s("high", "file permissions that let other users write or execute (CWE-732)"),
    "S108": _s("medium", "a fixed path in a shared temp directory can be raced or pre-created (CWE-377)"),
    "S306": _s("medium", "tempfile.mktemp returns a name another process can take first (CWE-377)"),
    "S310": _s("medium",
               "urlopen of a non-literal URL also opens file:// and custom schemes (CWE-918/CWE-22)"),
    "S113": _s("low", "a request without a timeout can hang forever (CWE-400)"),
    "S104": _s("low", "binding to all interfaces exposes the service on every network (CWE-605)"),
    "S201": _s("high", "Flask debug mode runs an interactive debugger reachable over the network (CWE-94)"),
    "S612": _s("medium", "logging.config.listen accepts configuration (and code) over a socket (CWE-94)"),
    "S312": _s("medium", "Telnet sends everything in clear text (CWE-319)"),
    "S321": _s("medium", "FTP sends credentials in clear text (CWE-319)"),
    "S313": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S314": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S315": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S316": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S317": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S318": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    "S319": _s("medium",
               "the standard XML parsers are open to entity expansion; use defusedxml (CWE-776/CWE-611)"),
    # exceptions swallowed (CWE-390, CWE-703)
    "S110": _s("medium",
               "try/except/pass hides failures (CWE-390); "
               "structural check rejects a handler made to swallow"),
    "S112": _s("medium", "try/except/continue hides failures, e.g. in a retry loop (CWE-390)"),
    "BLE001": _q("medium", "a blind except catches everything, bugs included (CWE-396)"),
    "B012": _q("high", "return/break/continue in finally silently drops the exception in flight (CWE-584)"),
    "PLW0711": _q("high", "`except A or B` catches only A: a certain bug"),
    "B030": _q("high", "an except clause with something that is not an exception class fails at run time"),
    "B029": _q("high", "`except ()` catches nothing"),
    "TRY203": _q("low", "a try/except that only re-raises is dead code"),
    "TRY002": _q("low", "raising bare Exception makes callers catch everything"),
    "TRY004": _q("low", "a failed type check should raise TypeError"),
    "TRY400": _q("low", "logging.error in an except loses the traceback"),
    # likely bugs (bugbear, pylint)
    "B006": _q("medium", "a mutable default argument is shared between calls"),
    "B008": _q("low", "a call in a default argument runs once, at definition"),
    "B011": _q("medium", "assert False vanishes under python -O"),
    "B015": _q("medium", "a comparison whose result is thrown away (a missing assert or if)"),
    "B016": _q("high", "raising a literal fails at run time"),
    "B018": _q("low", "an expression whose value is thrown away"),
    "B020": _q("medium", "the loop variable overwrites the iterable"),
    "B023": _q("medium", "a closure in a loop sees only the last value of the loop variable"),
    "B025": _q("medium", "a duplicate except clause is never reached"),
    "B026": _q("low", "star-arg after a keyword argument is confusing"),
    "B031": _q("medium", "a groupby group reused after the iterator moved on is empty"),
    "B032": _q("medium", "an annotation where an assignment was meant"),
    "B033": _q("low", "a duplicate value in a set literal"),
    "B904": _q("low", "raise inside except without `from` hides the cause"),
    "B905": _q("low", "zip without strict= silently truncates"),
    "B007": _q("low", "an unused loop variable"),
    "B009": _q("low", "getattr with a constant name"),
    "B010": _q("low", "setattr with a constant name"),
    "B017": _q("medium", "assertRaises(Exception) passes for any error, including the wrong one"),
    "B019": _q("low", "lru_cache on a method keeps every instance alive"),
    "B024": _q("low", "an abstract base class without abstract methods"),
    "B027": _q("low", "an empty method in an abstract class without @abstractmethod"),
    "B028": _q("low", "warnings.warn without stacklevel points at the wrong line"),
    "B002": _q("high", "++x is not an increment in Python"),
    "B003": _q("medium", "assigning os.environ replaces it only in this process' view"),
    "B005": _q("medium", "strip() with a multi-character string strips characters, not a prefix"),
    "B034": _q("medium", "re.sub positional count/flags are easily swapped"),
    "PLW0120": _q("low", "else on a loop without break"),
    "PLW0127": _q("medium", "a variable assigned to itself"),
    "PLW0128": _q("medium", "a name assigned twice in one assignment"),
    "PLW0129": _q("high", "assert on a non-empty string literal always passes"),
    "PLW0133": _q("high", "an exception created and not raised"),
    "PLW0177": _q("high", "comparing with NaN is always false"),
    "PLW0602": _q("low", "a global declared but not assigned"),
    "PLW0603": _q("low", "the global statement"),
    "PLW0642": _q("medium", "assigning to self/cls does not change the object"),
    "PLW1501": _q("high", "an invalid open() mode fails at run time"),
    "PLW1508": _q("medium", "an environment default that is not a string"),
    "PLW1509": _q("medium", "preexec_fn is unsafe with threads"),
    "PLW1510": _q("low", "subprocess.run without check= ignores failures"),
    "PLW2101": _q("high", "`with Lock():` creates a new lock each time: it protects nothing"),
    "PLW2901": _q("low", "a loop variable overwritten in its body"),
}

# Prefix defaults for codes not in the table (pyflakes, syntax errors): broken code is high, untidy is low.
PREFIXES: tuple[tuple[str, RuleMap], ...] = (
    ("invalid-syntax", _q("high", "the new code does not parse")),
    ("E9", _q("high", "the new code does not parse or compile")),
    ("F82", _q("high", "an undefined name fails at run time")),
    ("F63", _q("high", "a comparison or assert that is always true or false")),
    ("F7", _q("high", "a statement where it cannot be (break outside a loop, return outside a function)")),
    ("F", _q("low", "pyflakes: unused or shadowed names, import problems")),
    ("E", _q("low", "pycodestyle errors (imports, statements)")),
)

# ruff codes selected: the table, pyflakes and the pycodestyle errors that are about code, not layout
SELECT = ",".join(["E4", "E7", "E9", "F", *sorted(RULES)])

# S311/S324/S303 are medium where they are usually fine; on a line about a secret, or in a function named
# after one (reset_token, hash_password), they are the bug.
_ESCALATE = {"S311", "S324", "S303"}
_SECRETISH = re.compile(r"(?i)(token|secret|passw|pwd|salt|nonce|otp|session|csrf|reset|api_?key|credential|"
                        r"signature|hmac|auth)")


# Shell commands: injection happens where a value is put into a command line. A command built in place
# (f-string, +, %, .format, .join) is high; a command passed through whole (a configured hook, a test
# command the user wrote) is what a tool that runs the user's commands does: medium.
_SHELL = {"S602", "S604", "S605"}
# A literal password in a test file is a fixture (a test app's `secret_key = "dev"`), as ruff's own
# per-file-ignores advice for tests says: reported, low. A real key there is still the secrets detector's.
_TEST_FIXTURES = {"S105", "S106", "S107"}


def mapping(code: str, line_text: str = "", *, built_command: bool = True,
            in_test: bool = False) -> RuleMap | None:
    """The dimension and severity of a ruff code (None: not mapped, not reported)."""
    found = RULES.get(code)
    if found is None:
        found = next((m for prefix, m in PREFIXES if code.startswith(prefix)), None)
    if found is not None and in_test and code in _TEST_FIXTURES:
        return RuleMap(found.dimension, "low", found.why + "; in a test file, a fixture")
    if found is not None and code in _ESCALATE and _SECRETISH.search(line_text):
        return RuleMap(found.dimension, "high", found.why + "; here it is used for a secret")
    if found is not None and code in _SHELL and not built_command:
        return RuleMap(found.dimension, "medium", found.why + "; here the command is passed through whole, "
                       "not built from values")
    return found


@dataclass(frozen=True)
class RuffHit:
    path: str
    code: str
    message: str
    line: int
    end_line: int
    fix: str


def run_ruff(files: dict[str, str], timeout: float = 120.0) -> list[RuffHit] | None:
    """Ruff with ``SELECT`` on the given texts (path -> source), ignoring any project configuration.
    None when ruff could not run."""
    if not files:
        return []
    with tempfile.TemporaryDirectory(prefix="acode-ruff-") as tmp:
        root = Path(tmp).resolve()
        for path, text in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        try:
            done = subprocess.run(
                [sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", SELECT,
                 "--ignore-noqa", "--output-format", "json", "--exit-zero", "."], cwd=root,
                capture_output=True, text=True,
                timeout=timeout, check=False,
            )
            if done.returncode != 0:
                raise subprocess.SubprocessError(done.stderr.strip()[:500])
            reports = json.loads(done.stdout or "[]")
        except (OSError, subprocess.SubprocessError, json.JSONDecodeError) as exc:
            log.warning("ruff could not run: %s", exc)
            return None
        hits = []
        for item in reports:
            path = Path(item["filename"]).resolve().relative_to(root).as_posix()
            start = (item.get("location") or {}).get("row") or 1
            end = (item.get("end_location") or {}).get("row") or start
            hits.append(RuffHit(path, item.get("code") or "invalid-syntax", item.get("message", ""), start,
                                end, (item.get("fix") or {}).get("message") or ""))
        return hits


def new_hits(path: str, old: str | None, new: str, added: set[int]) -> list[tuple[RuffHit, RuleMap, str]]:
    """Ruff findings of ``new`` that touch an added line and are not in ``old`` (same rule, same code text),
    each with its mapping and the new line's text. One ruff run per version over one file; callers with
    many files use ``new_hits_many``."""
    return new_hits_many({path: (old, new, added)}).get(path, [])


def new_hits_many(files: dict[str, tuple[str | None, str, set[int]]]
                  ) -> dict[str, list[tuple[RuffHit, RuleMap, str]]]:
    return compare_versions(files)[0]


def compare_versions(files: dict[str, tuple[str | None, str, set[int]]]
                     ) -> tuple[dict[str, list[tuple[RuffHit, RuleMap, str]]],
                                dict[str, list[tuple[RuffHit, RuleMap, str]]]]:
    """(findings the change introduces on added lines, findings of the old version the change removes). Both
    are keyed by path; the removed ones carry old line numbers and the old line's text."""
    changed = {p: v for p, v in files.items() if v[2]}
    new_runs = run_ruff({p: new for p, (_, new, _) in changed.items()})
    if new_runs is None:
        return {}, {}
    old_runs = run_ruff({p: old for p, (old, _, _) in changed.items() if old is not None}) or []
    old_keys: dict[str, Counter] = {}
    for hit in old_runs:
        old_keys.setdefault(hit.path, Counter())[(hit.code, _span_text(files[hit.path][0] or "", hit))] += 1
    new_keys: dict[str, Counter] = {}
    for hit in new_runs:
        new_keys.setdefault(hit.path, Counter())[(hit.code, _span_text(files[hit.path][1], hit))] += 1
    resolved: dict[str, list[tuple[RuffHit, RuleMap, str]]] = {}
    for hit in sorted(old_runs, key=lambda h: (h.path, h.line)):
        old = files[hit.path][0] or ""
        key = (hit.code, _span_text(old, hit))
        if new_keys.get(hit.path, Counter())[key] > 0:
            new_keys[hit.path][key] -= 1
            continue
        rule = mapping(hit.code, _span_text(old, hit) + " " + _enclosing_function(old, hit.line),
                       in_test=is_test_path(hit.path))
        if rule is not None:
            resolved.setdefault(hit.path, []).append((hit, rule, old.splitlines()[hit.line - 1]))
    out: dict[str, list[tuple[RuffHit, RuleMap, str]]] = {}
    for hit in sorted(new_runs, key=lambda h: (h.path, h.line)):
        _, new, added = files[hit.path]
        if not any(n in added for n in range(hit.line, hit.end_line + 1)):
            continue
        key = (hit.code, _span_text(new, hit))
        seen = old_keys.get(hit.path)
        if seen and seen[key] > 0:
            seen[key] -= 1  # the same problem was already there before the change
            continue
        lines = new.splitlines()
        text = lines[hit.line - 1] if 0 < hit.line <= len(lines) else ""
        where = " ".join(lines[hit.line - 1: hit.end_line]) + " " + _enclosing_function(new, hit.line)
        built = _command_built_in_place(new, hit) if hit.code in _SHELL else True
        rule = mapping(hit.code, where, built_command=built, in_test=is_test_path(hit.path))
        if rule is not None and hit.code == "B034" and _flags_as_count(new, hit):
            rule = FLAGS_AS_COUNT
        if rule is not None and _silenced(lines[hit.line - 1: hit.end_line], hit.code):
            rule = _as_silenced(rule)
        if rule is not None:
            out.setdefault(hit.path, []).append((hit, rule, text))
    return out, resolved


def _command_built_in_place(text: str, hit: RuffHit) -> bool:
    """Whether the command of the shell call ruff reported is a string built in place (True when unsure)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == hit.line and n.args]
    if not calls:
        return True
    command = calls[0].args[0]
    if isinstance(command, (ast.JoinedStr, ast.BinOp)):
        return True
    if (isinstance(command, ast.Call) and isinstance(command.func, ast.Attribute)
            and command.func.attr in ("format", "join")):
        return True
    return not isinstance(command, (ast.Name, ast.Attribute, ast.Subscript, ast.Constant))


# B034 on a call whose count (or maxsplit) position holds re flags is not a style point but a certain bug:
# re.sub(p, r, s, re.ASCII) makes at most 256 replacements and ignores the flag.
FLAGS_AS_COUNT = _q("high", "re flags passed where re.sub/subn/split take count or maxsplit: the flags are "
                    "ignored and the number of replacements is capped by the flag's value")
_RE_FLAGS = {"A", "ASCII", "I", "IGNORECASE", "L", "LOCALE", "M", "MULTILINE", "S", "DOTALL", "X", "VERBOSE",
             "U", "UNICODE", "DEBUG", "NOFLAG"}
_COUNT_POSITION = {"sub": 3, "subn": 3, "split": 2}


# A noqa comment on a line the change adds is the branch's own say-so: it must not make a finding vanish
# (a hostile branch would put one after `shell=True`). The finding is shown, with the silencing named, and
# counts at most as medium: a reviewed, deliberate exception (an allow-listed column name in built SQL)
# needs work, a human looks, it does not reject on its own. Ruff runs with --ignore-noqa to see them.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_SEVERITY_RANK = ("info", "low", "medium", "high", "critical")


def _silenced(lines: list[str], code: str) -> bool:
    for line in lines:
        for found in _NOQA.finditer(line):
            codes = found.group("codes")
            if codes is None or code.upper() in re.split(r"[\s,]+", codes.upper()):
                return True
    return False


def _as_silenced(rule: RuleMap) -> RuleMap:
    severity = min(rule.severity, "medium", key=_SEVERITY_RANK.index)
    return RuleMap(rule.dimension, severity, rule.why + "; silenced by a noqa comment on this added "
                   "line, which does not hide a finding from the review")


def _flags_as_count(text: str, hit: RuffHit) -> bool:
    """Whether the re call ruff reported passes re flags positionally where the count goes."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    for call in ast.walk(tree):
        if (isinstance(call, ast.Call) and call.lineno <= hit.line <= (call.end_lineno or call.lineno)
                and isinstance(call.func, ast.Attribute) and call.func.attr in _COUNT_POSITION
                and len(call.args) > _COUNT_POSITION[call.func.attr]):
            return _is_flag(call.args[_COUNT_POSITION[call.func.attr]])
    return False


def _is_flag(node: ast.expr) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _is_flag(node.left) or _is_flag(node.right)
    return isinstance(node, ast.Attribute) and node.attr in _RE_FLAGS


def _enclosing_function(text: str, line: int) -> str:
    """The name of the innermost function around ``line`` ('' at module level or when it does not parse)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return ""
    around = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
              and n.lineno <= line <= (n.end_lineno or n.lineno)]
    return max(around, key=lambda n: n.lineno).name if around else ""


def _span_text(text: str, hit: RuffHit) -> str:
    lines = text.splitlines()[hit.line - 1: hit.end_line]
    return " ".join(line.strip() for line in lines)
