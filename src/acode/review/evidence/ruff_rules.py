"""The table from a ruff code to a review dimension and severity, each with the reason it maps there
(``RULES``, ``PREFIXES`` for the rest), and the adjustments ``mapping`` makes from what the caller found in
the code (``ruff`` runs ruff and finds it).

Severity decides what a finding does (``deciding.levels``): ``high`` makes its dimension poor, which rejects;
``medium`` makes it need work (more than ``thresholds.max_needs_work`` such dimensions reject); ``low`` is
reported and only lowers the level to acceptable. ``high`` is kept for patterns that are a vulnerability or
a certain bug wherever they appear in new code; patterns that are often fine (a blind ``except`` at a top
level, ``random`` for jitter, ``md5`` for a cache key) are ``medium`` or ``low``, and ``_ESCALATE`` raises a
few of them to ``high`` when the line is about a secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from acode.review.models import Severity


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

# flake8-print: console output is a command-line program's job; reported only where it is a debug print left
# in a library module (``STRAY_PRINT``)
PRINTS = ("T201", "T203")

# ruff codes selected: the table, pyflakes and the pycodestyle errors that are about code, not layout
SELECT = ",".join(["E4", "E7", "E9", "F", *sorted(RULES), *sorted(PRINTS)])

# S311/S324/S303 are medium where they are usually fine; on a line about a secret, or in a function named
# after one (reset_token, hash_password), they are the bug.
_ESCALATE = {"S311", "S324", "S303"}
_SECRETISH = re.compile(r"(?i)(token|secret|passw|pwd|salt|nonce|otp|session|csrf|reset|api_?key|credential|"
                        r"signature|hmac|auth)")


# Shell commands: injection happens where a value is put into a command line. A command built in place
# (f-string, +, %, .format, .join) is high; a command passed through whole (a configured hook, a test
# command the user wrote) is what a tool that runs the user's commands does: medium.
SHELL = {"S602", "S604", "S605"}
# A literal password in a test file is a fixture (a test app's `secret_key = "dev"`), as ruff's own
# per-file-ignores advice for tests says: reported, low. A real key there is still the secrets detector's.
_TEST_FIXTURES = {"S105", "S106", "S107"}


# B034 on a call whose count (or maxsplit) position holds re flags is not a style point but a certain bug:
# re.sub(p, r, s, re.ASCII) makes at most 256 replacements and ignores the flag.
FLAGS_AS_COUNT = _q("high", "re flags passed where re.sub/subn/split take count or maxsplit: the flags are "
                    "ignored and the number of replacements is capped by the flag's value")

# A print() added to a module whose base version never writes to the console (no print, no __main__, not a
# script or a test) is a debug print left in: it writes into the output of every program that imports the
# module. sqlparse 0.4.1 was released only to remove one.
STRAY_PRINT = _q("high", "print() added to a library module that never wrote to the console: a debug print "
                 "left in writes into the output of every program that imports it; use logging")

# A noqa comment is the say-so of whoever wrote it. The change's own (on a line it adds, where the base did
# not silence the rule in that function) must not make a finding vanish or weaken it: a hostile branch would
# put one after `shell=True`. The finding keeps its severity and says that the change silences it. A noqa the
# base already had for the rule there is a reviewed, deliberate exception (an allow-listed column name in
# built SQL): the finding counts at most as medium, needs work, a human looks; it does not reject on its own.
_SEVERITY_RANK = get_args(Severity)[::-1]  # info ... critical


def mapping(code: str, line_text: str = "", *, built_command: bool = True, in_test: bool = False,
            flags_as_count: bool = False, stray_print: bool = False,
            silenced: Literal["", "base", "change"] = "") -> RuleMap | None:
    """The dimension and severity of a ruff code (None: not mapped, not reported), adjusted by what the
    caller found in the code: ``built_command`` (a shell command built in place), ``in_test`` (a test
    file), ``flags_as_count`` (B034 with re flags where the count goes), ``stray_print`` (T201/T203 in a
    module that never wrote to the console), ``silenced`` (a noqa comment on the added line names the rule:
    "base" when the base already silenced it there, "change" when the comment is the change's own)."""
    if code in PRINTS:
        return STRAY_PRINT if stray_print else None
    found = RULES.get(code)
    if found is None:
        found = next((m for prefix, m in PREFIXES if code.startswith(prefix)), None)
    if found is None:
        return None
    if in_test and code in _TEST_FIXTURES:
        found = RuleMap(found.dimension, "low", found.why + "; in a test file, a fixture")
    elif code in _ESCALATE and _SECRETISH.search(line_text):
        found = RuleMap(found.dimension, "high", found.why + "; here it is used for a secret")
    elif code in SHELL and not built_command:
        found = RuleMap(found.dimension, "medium", found.why + "; here the command is passed through whole, "
                        "not built from values")
    elif flags_as_count:
        found = FLAGS_AS_COUNT
    if silenced == "change":
        found = RuleMap(found.dimension, found.severity,
                        f"the change silences {code} on the line it adds: a noqa comment of the change under "
                        f"review neither hides nor lowers a finding; {found.why}")
    elif silenced == "base":
        found = RuleMap(found.dimension, min(found.severity, "medium", key=_SEVERITY_RANK.index),
                        found.why + f"; {code} was already silenced with a noqa comment here on the base, a "
                        "reviewed exception: at most medium")
    return found
