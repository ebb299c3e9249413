"""Each ruff rule of the review's rule table on a real code sample, and what makes a finding count: on an
added line, and new against the base version."""

from __future__ import annotations

import pytest
from tests.helpers.review_fakes import repo_with_branch

from acode.review.change.git_context import branch_context
from acode.review.evidence.gathering import ruff_findings
from acode.review.evidence.ruff import compare_versions
from acode.review.evidence.ruff_rules import RULES, mapping

SAMPLES = {
    "S102": "def f(code):\n    exec(code)\n",
    "S307": "def f(text):\n    return eval(text)\n",
    "S602": "import subprocess\n\n\ndef f(path):\n    subprocess.Popen('ls -l ' + path, shell=True)\n",
    "S604": "def f(path, run):\n    run(f'ls -l {path}', shell=True)\n",
    "S605": "import os\n\n\ndef f(name):\n    os.system('ls ' + name)\n",
    "S609": "import os\n\n\ndef f():\n    os.system('chown root *')\n",
    "S608": "def f(db, name):\n    query = f\"SELECT id FROM users WHERE name = '{name}'\"\n    return db.execute(query)\n",
    "S610": "def f(qs, col):\n    return qs.extra(select={'x': col})\n",
    "S611": "from django.db.models.expressions import RawSQL\n\n\ndef f(col):\n    return RawSQL(col, [])\n",
    "S701": "import jinja2\n\n\ndef f():\n    return jinja2.Environment(loader=None, autoescape=False)\n",
    "S702": "from mako.template import Template\n\n\ndef f(t):\n    return Template(t)\n",
    "S704": "from markupsafe import Markup\n\n\ndef f(name):\n    return Markup(f'<b>{name}</b>')\n",
    "S308": "from django.utils.safestring import mark_safe\n\n\ndef f(name):\n    return mark_safe(name)\n",
    "S301": "import pickle\n\n\ndef f(blob):\n    return pickle.loads(blob)\n",
    "S302": "import marshal\n\n\ndef f(blob):\n    return marshal.loads(blob)\n",
    "S506": "import yaml\n\n\ndef f(text):\n    return yaml.load(text)\n",
    "S501": "import requests\n\n\ndef f(url):\n    return requests.get(url, verify=False, timeout=5)\n",
    "S323": "import ssl\n\n\ndef f():\n    return ssl._create_unverified_context()\n",
    "S502": "import ssl\n\n\ndef f(sock):\n    return ssl.wrap_socket(sock, ssl_version=ssl.PROTOCOL_SSLv3)\n",
    "S503": "import ssl\n\n\ndef f(sock, version=ssl.PROTOCOL_SSLv3):\n    return sock, version\n",
    "S504": "import ssl\n\n\ndef f(sock):\n    return ssl.wrap_socket(sock)\n",
    "S505": "from cryptography.hazmat.primitives.asymmetric import rsa\n\n\ndef f():\n    return rsa.generate_private_key(public_exponent=65537, key_size=1024)\n",
    "S507": "from paramiko import client\n\n\ndef f():\n    ssh = client.SSHClient()\n    ssh.set_missing_host_key_policy(client.AutoAddPolicy)\n",
    "S304": "from cryptography.hazmat.primitives.ciphers import algorithms\n\n\ndef f(key):\n    return algorithms.ARC4(key)\n",
    "S305": "from cryptography.hazmat.primitives.ciphers import modes\n\n\ndef f():\n    return modes.ECB()\n",
    "S303": "from Crypto.Hash import MD5\n\n\ndef f(data):\n    return MD5.new(data)\n",
    "S324": "import hashlib\n\n\ndef f(data):\n    return hashlib.md5(data).hexdigest()\n",
    "S311": "import random\n\n\ndef f(items):\n    return random.choice(items)\n",
    "S105": "def f():\n    password = 'correct-horse-battery'\n    return password\n",
    "S106": "def f(connect):\n    return connect(user='app', password='correct-horse-battery')\n",
    "S107": "def f(user, password='correct-horse-battery'):\n    return user, password\n",
    "S202": "import tarfile\n\n\ndef f(path, target):\n    with tarfile.open(path) as archive:\n        archive.extractall(target)\n",
    "S103": "import os\n\n\ndef f(path):\n    os.chmod(path, 0o777)\n",
    "S108": "def f(data):\n    with open('/tmp/acode-cache.txt', 'w') as out:\n        out.write(data)\n",
    "S306": "import tempfile\n\n\ndef f():\n    return tempfile.mktemp()\n",
    "S310": "import urllib.request\n\n\ndef f(url):\n    return urllib.request.urlopen(url)\n",
    "S113": "import requests\n\n\ndef f(url):\n    return requests.get(url)\n",
    "S104": "def f(server):\n    server.bind(('0.0.0.0', 8080))\n",
    "S201": "from flask import Flask\n\napp = Flask(__name__)\napp.run(debug=True)\n",
    "S612": "import logging.config\n\n\ndef f():\n    return logging.config.listen(9999)\n",
    "S312": "import telnetlib\n\n\ndef f(host):\n    return telnetlib.Telnet(host)\n",
    "S321": "import ftplib\n\n\ndef f(host):\n    return ftplib.FTP(host)\n",
    "S313": "from xml.etree.cElementTree import fromstring\n\n\ndef f(text):\n    return fromstring(text)\n",
    "S314": "import xml.etree.ElementTree as ET\n\n\ndef f(text):\n    return ET.fromstring(text)\n",
    "S315": "import xml.sax.expatreader\n\n\ndef f():\n    return xml.sax.expatreader.create_parser()\n",
    "S316": "import xml.dom.expatbuilder\n\n\ndef f(text):\n    return xml.dom.expatbuilder.parseString(text)\n",
    "S317": "import xml.sax\n\n\ndef f(text, handler):\n    return xml.sax.parseString(text, handler)\n",
    "S318": "import xml.dom.minidom\n\n\ndef f(text):\n    return xml.dom.minidom.parseString(text)\n",
    "S319": "import xml.dom.pulldom\n\n\ndef f(text):\n    return xml.dom.pulldom.parseString(text)\n",
    "S110": "def f(go):\n    try:\n        go()\n    except Exception:\n        pass\n",
    "S112": "def f(items, go):\n    for item in items:\n        try:\n            go(item)\n        except Exception:\n            continue\n",
    "BLE001": "def f(go, log):\n    try:\n        go()\n    except Exception:\n        log('failed')\n",
    "B012": "def f(go):\n    try:\n        go()\n    finally:\n        return 1\n",
    "PLW0711": "def f(go):\n    try:\n        go()\n    except ValueError or TypeError:\n        raise\n",
    "B030": "def f(go):\n    try:\n        go()\n    except 1:\n        raise\n",
    "B029": "def f(go):\n    try:\n        go()\n    except ():\n        raise\n",
    "TRY203": "def f(go):\n    try:\n        go()\n    except ValueError:\n        raise\n",
    "TRY002": "def f():\n    raise Exception('boom')\n",
    "TRY004": "def f(x):\n    if not isinstance(x, int):\n        raise ValueError('not an int')\n",
    "TRY400": "import logging\n\n\ndef f(go):\n    try:\n        go()\n    except ValueError:\n        logging.error('failed')\n",
    "B006": "def f(items=[]):\n    return items\n",
    "B008": "def f(x=compute()):\n    return x\n",
    "B011": "def f():\n    assert False\n",
    "B015": "def f(x):\n    x == 1\n",
    "B016": "def f():\n    raise 'boom'\n",
    "B018": "def f(x):\n    x.y\n",
    "B020": "def f(items):\n    for items in items:\n        print(items)\n",
    "B023": "def f():\n    out = []\n    for i in range(3):\n        out.append(lambda: i)\n    return out\n",
    "B025": "def f(go):\n    try:\n        go()\n    except ValueError:\n        raise\n    except ValueError:\n        return 1\n",
    "B026": "def f(g, a, b):\n    return g(b=1, *a)\n",
    "B031": "import itertools\n\n\ndef f(rows):\n    for _key, group in itertools.groupby(rows):\n        a = list(group)\n        b = list(group)\n        print(a, b)\n",
    "B032": "def f(d):\n    d['x']: int\n",
    "B033": "def f():\n    return {1, 1}\n",
    "B904": "def f(go):\n    try:\n        go()\n    except KeyError:\n        raise ValueError('missing')\n",
    "B905": "def f(a, b):\n    return list(zip(a, b))\n",
    "B007": "def f():\n    for i in range(3):\n        print('x')\n",
    "B009": "def f(x):\n    return getattr(x, 'name')\n",
    "B010": "def f(x):\n    setattr(x, 'name', 1)\n",
    "B017": "import unittest\n\n\nclass T(unittest.TestCase):\n    def test(self):\n        with self.assertRaises(Exception):\n            pass\n",
    "B019": "import functools\n\n\nclass C:\n    @functools.lru_cache\n    def f(self):\n        return 1\n",
    "B024": "import abc\n\n\nclass C(abc.ABC):\n    def f(self):\n        return 1\n",
    "B027": "import abc\n\n\nclass C(abc.ABC):\n    def f(self):\n        pass\n\n    @abc.abstractmethod\n    def g(self):\n        return 1\n",
    "B028": "import warnings\n\n\ndef f():\n    warnings.warn('old')\n",
    "B002": "def f(x):\n    return ++x\n",
    "B003": "import os\n\n\ndef f():\n    os.environ = {}\n",
    "B005": "def f(s):\n    return s.strip('https://')\n",
    "B034": "import re\n\n\ndef f(s):\n    return re.sub('a', 'b', s, 1)\n",
    "PLW0120": "def f(items):\n    for i in items:\n        print(i)\n    else:\n        return 1\n",
    "PLW0127": "def f(x):\n    x = x\n    return x\n",
    "PLW0128": "def f():\n    a, a = 1, 2\n    return a\n",
    "PLW0129": "def f():\n    assert 'always'\n",
    "PLW0133": "def f():\n    ValueError('not raised')\n",
    "PLW0177": "import math\n\n\ndef f(x):\n    return x == math.nan\n",
    "PLW0602": "X = 1\n\n\ndef f():\n    global X\n    return X\n",
    "PLW0603": "X = 1\n\n\ndef f():\n    global X\n    X = 2\n",
    "PLW0642": "class C:\n    def f(self):\n        self = 1\n        return self\n",
    "PLW1501": "def f(p):\n    return open(p, 'rwx')\n",
    "PLW1508": "import os\n\n\ndef f():\n    return os.getenv('X', 1)\n",
    "PLW1509": "import subprocess\n\n\ndef f():\n    subprocess.Popen(['ls'], preexec_fn=lambda: None)\n",
    "PLW1510": "import subprocess\n\n\ndef f():\n    subprocess.run(['ls'])\n",
    "PLW2101": "import threading\n\n\ndef f():\n    with threading.Lock():\n        return 1\n",
    "PLW2901": "def f(items):\n    for item in items:\n        item = item.strip()\n        print(item)\n",
}


def new_hits(path: str, old: str | None, new: str, added: set[int]) -> list:
    """The findings ``compare_versions`` says one file's change introduces on its added lines."""
    return compare_versions({path: (old, new, added)})[0].get(path, [])


def test_every_mapped_rule_has_a_sample():
    assert set(SAMPLES) == set(RULES)


@pytest.fixture(scope="module")
def sample_hits():
    files = {f"s_{code}/m.py": (None, text, set(range(1, text.count("\n") + 2))) for code, text in SAMPLES.items()}
    return compare_versions(files)[0]


@pytest.mark.parametrize("code", sorted(SAMPLES))
def test_each_mapped_rule_fires_on_its_sample_with_the_table_severity(code, sample_hits):
    found = {hit.code: rule for hit, rule, _ in sample_hits.get(f"s_{code}/m.py", [])}
    assert code in found, f"ruff did not report {code} on its sample"
    expected = RULES[code]
    assert (found[code].dimension, found[code].severity) in {(expected.dimension, expected.severity),
                                                             (expected.dimension, "high")}
    assert expected.why


def test_a_finding_counts_only_when_new_against_the_base():
    old = "import pickle\n\n\ndef load(blob):\n    return pickle.loads(blob)\n"
    moved = "import pickle\n\n\ndef other():\n    return 1\n\n\ndef load(blob):\n    return pickle.loads(blob)\n"
    # the unsafe call moved down (its line is added in the diff) but it was already there: not blamed
    assert [h.code for h, _, _ in new_hits("m.py", old, moved, {4, 5, 6, 7, 8, 9})] == []
    # a second unpickling is new
    twice = moved + "\n\ndef again(blob):\n    return pickle.loads(blob)\n"
    assert [(h.code, h.line) for h, _, _ in new_hits("m.py", old, twice, set(range(4, 14)))] == [("S301", 13)]


def test_a_finding_off_the_added_lines_is_not_reported():
    new = "import pickle\n\n\ndef load(blob):\n    return pickle.loads(blob)\n\n\nX = 1\n"
    assert new_hits("m.py", None, new, {8}) == []


def test_sql_built_in_a_variable_then_executed_is_found():
    old = 'def find(db, name):\n    return db.execute("SELECT id FROM users WHERE name = ?", (name,))\n'
    new = ('def find(db, name):\n    query = "SELECT id FROM users WHERE name = \'%s\'" % name\n'
           "    return db.execute(query)\n")
    [(hit, rule, text)] = [h for h in new_hits("m.py", old, new, {2, 3}) if h[0].code.startswith("S")]
    assert (hit.code, hit.line, rule.severity, rule.dimension) == ("S608", 2, "high", "safety")
    assert "%s" in text


def test_weak_random_and_hashes_are_high_only_when_used_for_a_secret():
    assert mapping("S311", "delay = random.uniform(0, 1)").severity == "medium"
    assert mapping("S311", "token = ''.join(random.choice(ALPHABET) for _ in range(32))").severity == "high"
    assert mapping("S324", "key = hashlib.md5(path.encode()).hexdigest()").severity == "medium"
    assert mapping("S324", "digest = hashlib.md5(password.encode()).hexdigest()").severity == "high"
    assert mapping("F821").severity == "high" and mapping("F401").severity == "low"
    assert mapping("X999") is None


def test_ruff_evidence_from_a_branch_names_the_rule_and_why(tmp_path):
    before = {"app.py": "import subprocess\n\n\ndef run(args):\n    return subprocess.run(args, check=True)\n"}
    after = {"app.py": "import subprocess\n\n\ndef run(args):\n    return subprocess.run(' '.join(args), shell=True, check=True)\n"}
    repo = repo_with_branch(tmp_path / "r", before, after)
    [finding] = [f for f in ruff_findings(branch_context(repo)) if f.rule == "ruff/S602"]
    assert (finding.file, finding.line, finding.severity, finding.dimension, finding.source) == (
        "app.py", 5, "high", "safety", "ruff")
    assert "CWE-78" in finding.message and "shell=True" in finding.quote


def test_weak_random_in_a_function_named_after_a_secret_is_high():
    new = ("import random\nimport string\n\n\ndef reset_token(length=32):\n"
           "    return ''.join(random.choice(string.ascii_letters) for _ in range(length))\n")
    [(_, rule, _)] = [h for h in new_hits("m.py", None, new, {6}) if h[0].code == "S311"]
    assert rule.severity == "high"
    jitter = "import random\n\n\ndef backoff(attempt):\n    return 2 ** attempt + random.random()\n"
    [(_, rule, _)] = [h for h in new_hits("m.py", None, jitter, {5}) if h[0].code == "S311"]
    assert rule.severity == "medium"


def test_a_shell_command_passed_through_whole_is_medium_and_one_built_from_values_is_high():
    hook = "import subprocess\n\n\ndef run_hook(command):\n    return subprocess.run(command, shell=True, check=False)\n"
    built = hook.replace("subprocess.run(command,", "subprocess.run(f'sh -c {command}',")
    severity = {text: [r.severity for h, r, _ in new_hits("m.py", None, text, {5}) if h.code == "S602"]
                for text in (hook, built)}
    assert severity == {hook: ["medium"], built: ["high"]}


def test_a_noqa_the_change_adds_neither_hides_nor_lowers_a_finding_one_the_base_had_caps_it_at_medium():
    """The branch under review is untrusted: its own noqa comment cannot make `shell=True` vanish or weigh
    less (issue 47 item 4). A deliberate exception the base already made for the rule in that function
    still does not reject on its own (medium: needs work, a human looks)."""
    sql = "def f(db, table):\n    return db.execute(f'SELECT * FROM {table}')  # noqa: S608\n"
    [(_, rule, _)] = [h for h in new_hits("m.py", None, sql, {2}) if h[0].code == "S608"]
    assert rule.severity == "high" and "the change silences S608 on the line it adds" in rule.why
    shell = ("import subprocess\n\n\ndef run(cmd):\n"
             "    return subprocess.run(f'sh -c {cmd}', shell=True)  # noqa\n")
    assert [r.severity for h, r, _ in new_hits("m.py", None, shell, {5}) if h.code == "S602"] == ["high"]
    other = sql.replace("# noqa: S608", "# noqa: E501")  # silences another rule: not this one
    [(_, rule, _)] = [h for h in new_hits("m.py", None, other, {2}) if h[0].code == "S608"]
    assert rule.severity == "high" and "silence" not in rule.why
    low = "def f():\n    return {1, 1}  # noqa: B033\n"  # never raised above its table severity
    assert [r.severity for h, r, _ in new_hits("m.py", None, low, {2}) if h.code == "B033"] == ["low"]
    # a noqa already in the base, on a line the change does not add, is the project's: not reported
    assert new_hits("m.py", sql, sql + "\nX = 1\n", {4}) == []
    # the base silenced S608 in f(); the change edits that query: the base's exception, at most medium
    edited = sql.replace("{table}'", "{table} LIMIT 5'")
    [(_, rule, _)] = [h for h in new_hits("m.py", sql, edited, {2}) if h[0].code == "S608"]
    assert rule.severity == "medium" and "already silenced" in rule.why
    # ...which excuses that one finding, not a second built query the change adds beside it
    second = edited.replace("    return", "    db.execute(f'DELETE FROM {table}')  # noqa: S608\n    return")
    assert sorted(r.severity for h, r, _ in new_hits("m.py", sql, second, {2, 3}) if h.code == "S608") == [
        "high", "medium"]


def test_a_literal_password_in_a_test_file_is_a_fixture_and_in_code_it_is_high(tmp_path):
    fixture = "def test_session(app):\n    app.secret_key = 'test key'\n    assert app\n"
    code = "def configure(app):\n    app.secret_key = 'test key'\n"
    repo = repo_with_branch(tmp_path / "r", {"README": "x\n"},
                            {"tests/test_session.py": fixture, "src/app.py": code})
    found = {f.file: (f.rule, f.severity) for f in ruff_findings(branch_context(repo, "main"))}
    assert found == {"tests/test_session.py": ("ruff/S105", "low"), "src/app.py": ("ruff/S105", "high")}
    assert mapping("S105", in_test=True).severity == "low" and mapping("S608", in_test=True).severity == "high"


def test_re_flags_passed_where_the_count_goes_are_a_certain_bug_and_a_positional_count_is_not():
    """click 8.1.7 fixed `re.sub(r"\\W*", "", name, re.ASCII)`: re.ASCII (256) is taken as the count and
    the flag is lost. Ruff's B034 reports every positional count; only flags in that place are high."""
    flags = ('import re\n\n\ndef safe(name):\n    return re.sub(r"\\W*", "", name.replace("-", "_"), '
             're.ASCII)\n')
    combined = flags.replace("re.ASCII", "re.I | re.M")
    split = 'import re\n\n\ndef words(text):\n    return re.split(r"\\s+", text, re.MULTILINE)\n'
    count = flags.replace("re.ASCII", "1")
    severity = {name: [r.severity for h, r, _ in new_hits("m.py", None, text, {5}) if h.code == "B034"]
                for name, text in (("flags", flags), ("combined", combined), ("split", split),
                                   ("count", count))}
    assert severity == {"flags": ["high"], "combined": ["high"], "split": ["high"], "count": ["medium"]}


def test_a_print_added_to_a_library_module_that_never_printed_is_a_debug_print_left_in():
    """sqlparse 0.4.1 was released to remove `print(tidx, token, tlist)` from a filter. A command-line
    program, a script, a test, a module that already prints or a print to a named file is not flagged."""
    old = "def process(tlist, tidx):\n    token = tlist[tidx]\n    return token\n"
    new = old.replace("    return token", "    print(tidx, token, tlist)\n    return token")
    added = {3}

    def severities(path, before, after=new):
        return [r.severity for h, r, _ in new_hits(path, before, after, added) if h.code.startswith("T")]

    assert severities("sqlparse/filters/reindent.py", old) == ["high"]
    [(_, rule, text)] = new_hits("sqlparse/filters/reindent.py", old, new, added)
    assert "debug print" in rule.why and text.strip() == "print(tidx, token, tlist)"
    assert severities("tests/test_reindent.py", old) == []
    assert severities("scripts/report.py", old) == [] and severities("pkg/__main__.py", old) == []
    assert severities("pkg/cli/run.py", old) == []
    assert severities("pkg/filters.py", None) == []  # a new file: a program may well print
    printing = old + "\n\ndef show(x):\n    print(x)\n"
    assert severities("pkg/report.py", printing, new + "\n\ndef show(x):\n    print(x)\n") == []
    main = old + '\n\nif __name__ == "__main__":\n    process([1], 0)\n'
    assert severities("pkg/tool.py", main, new + '\n\nif __name__ == "__main__":\n    process([1], 0)\n') == []
    stderr = new.replace("print(tidx, token, tlist)", "print('warning', file=sys.stderr)")
    assert severities("pkg/filters.py", old, stderr) == []


def test_a_rewritten_line_keeps_its_old_finding_when_the_flagged_call_is_the_same():
    """A real fix wrapped an existing ``shelve.open(path)`` in ``closing(...)``: S301 fires on the new line, but
    the same call with the same arguments in the same function was flagged in the base (issue 31)."""
    old = "import shelve\n\n\ndef load(path):\n    db = shelve.open(path)\n    return dict(db)\n"
    new = ("import shelve\nfrom contextlib import closing\n\n\ndef load(path):\n"
           "    with closing(shelve.open(path)) as db:\n        return dict(db)\n")
    assert new_hits("store.py", old, new, {2, 6, 7}) == []
    # another call, or the same call moved into another function, is new
    other = new.replace("shelve.open(path)", "shelve.open(path + '.db')")
    assert [h.code for h, _, _ in new_hits("store.py", old, other, {2, 6, 7})] == ["S301"]
    moved = new.replace("def load(path)", "def load_all(path)")
    assert [h.code for h, _, _ in new_hits("store.py", old, moved, {2, 5, 6, 7})] == ["S301"]
