"""What the behavioural diff adds over the project's tests (issue 49), through the CLI on a scripted model:
a change that never returns where the old version did, state kept between calls (call sequences on one
object), and the intent deciding whether a difference counts."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from tests.helpers.review_fakes import repo_with_branch

from acode.sandbox import find_sandbox

needs_sandbox = pytest.mark.skipif(find_sandbox()[0] is None, reason="bubblewrap cannot start here")


def review(tmp_path, before: dict[str, str], after: dict[str, str], message: str, answers: list[str],
           env: dict[str, str] | None = None, behaviour: dict | None = None) -> dict:
    """``acode review --base main --json`` of the change ``before`` -> ``after``, the scripted model giving
    ``answers`` (the intent question's four, then the yes/no question about a difference: old outcome first,
    then new); ``env``: the review's environment variables (default: the test's); ``behaviour``: more
    ``reviewer.behaviour`` settings."""
    repo = repo_with_branch(tmp_path / "repo", before, after, message=message)
    script = tmp_path / "script.yml"
    script.write_text(yaml.safe_dump([{"text": a} for a in answers]))
    (repo / ".acode").mkdir()
    (repo / ".acode" / "config.yml").write_text(yaml.safe_dump({
        "model": {"backend": "scripted", "script": str(script)},
        "reviewer": {"strategy": "checks_only", "regression": {"method": "off"},
                     "behaviour": {"crosshair_seconds": 0, **(behaviour or {})}}}))
    done = subprocess.run([sys.executable, "-m", "acode", "review", "--base", "main", "--json", "--no-run-tests"],
                          cwd=repo, capture_output=True, text=True, timeout=300, check=False, env=env)
    assert done.returncode in (0, 50), done.stderr[-3000:]
    return json.loads(done.stdout)


def differences(data: dict) -> dict[str, dict]:
    return {f["function"]: f for f in data["behaviour"]["functions"]}


def behaviour_finding(data: dict, function: str) -> dict:
    return next(f for f in data["evidence"] if f["rule"] == "behaviour/changed" and f"`{function}(" in f["message"])


COUNT = '''def count_spaces(text: str) -> int:
    count = 0
    i = 0
    while i < len(text):
        if text[i] == " ":
            count += 1
        i += 1
    return count
'''
# the index is no longer advanced past a space: the loop never ends on any text that has one
HANGS = COUNT.replace("            count += 1\n", "            count += 1\n            continue\n")


@needs_sandbox
def test_a_change_that_never_returns_where_the_old_version_did_is_a_difference_with_its_input(tmp_path):
    data = review(tmp_path, {"words.py": COUNT}, {"words.py": HANGS}, "Count spaces in one pass",
                  answers=["Yes", "Yes", "No", "No", "Yes", "No"])  # a change asked; the old outcome is right
    found = differences(data)["count_spaces"]
    assert found["status"] == "differs", found  # before: "could not be run: did not finish in its time box"
    difference = found["difference"]
    assert difference["kind"] == "hang" and difference["old"] == "returns 1"
    assert difference["input"] == "count_spaces(' ')"
    # measured fairly: the new version had twice the old one's box, and the old returned on the same input
    assert difference["new"].startswith("does not finish in 4 s (the old version returned in")
    finding = behaviour_finding(data, "count_spaces")
    assert finding["severity"] == "high" and "finds the old outcome right" in finding["message"]
    assert data["approved"] is False
    # the test to paste ends the call that never returns (an alarm) and passes on the old code
    assert "signal.alarm(10)" in finding["test"] and "assert count_spaces(' ') == 1" in finding["test"]
    assert run_pasted(tmp_path, finding["test"], "words", COUNT).returncode == 0


RETRY = '''def attempts(tries: int) -> int:
    done = 0
    while done < tries:
        done += 1
    return done
'''
# a retry loop whose bare ``except:`` swallows the per-call alarm, around a pattern that backtracks for ages:
# nothing stops it but the child's time box
STUCK = RETRY.replace("        done += 1\n", """        if tries > 2:
            try:
                import re
                re.match(r'(a+)+$', 'a' * 40 + 'b')
            except:  # noqa: E722
                continue
        done += 1
""")


@pytest.mark.slow
@needs_sandbox
def test_a_call_the_alarm_cannot_stop_is_still_a_hang_with_the_input_the_old_version_returned_on(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff

    context = branch_context(repo_with_branch(tmp_path / "r", {"retry.py": RETRY}, {"retry.py": STUCK}), "main")
    [found] = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, plan_seconds=2)).results
    assert found.status == "differs", found  # before: not run, "did not finish in its time box"
    assert found.difference["kind"] == "hang" and found.difference["found_by"] == "time box"
    tries = int(found.difference["input"].removeprefix("attempts(").removesuffix(")"))
    assert tries > 2 and found.difference["old"] == f"returns {tries}"


TALLY = '''class Tally:
    """Counts events per name; ``reset`` starts again from zero."""

    def __init__(self, start: int = 0):
        self.start = start
        self.counts: dict = {}
        self.total = start

    def add(self, name: str) -> int:
        self.counts[name] = self.counts.get(name, 0) + 1
        self.total += 1
        return self.counts[name]

    def reset(self) -> None:
        self.counts = {}
        self.total = self.start

    def count(self, name: str) -> int:
        return self.counts.get(name, 0)
'''
# the per-name counters are no longer cleared: a fresh object shows nothing, the second add after a reset does
NOT_RESET = TALLY.replace("        self.counts = {}\n        self.total = self.start\n",
                          "        self.total = self.start\n")


def run_pasted(tmp_path, test: str, module: str, source: str) -> subprocess.CompletedProcess:
    folder = tmp_path / f"paste-{abs(hash(source))}"
    folder.mkdir()
    (folder / f"{module}.py").write_text(source)
    (folder / "test_pasted.py").write_text(test)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_pasted.py"],
                          cwd=folder, capture_output=True, text=True, timeout=120, check=False)


@needs_sandbox
def test_a_counter_never_reset_is_found_by_a_call_sequence_and_pasted_back_as_a_failing_test(tmp_path):
    data = review(tmp_path, {"tally.py": TALLY}, {"tally.py": NOT_RESET}, "Make reset cheaper",
                  answers=["Yes", "Yes", "No", "No", "Yes", "No"])
    found = differences(data)["Tally.reset"]
    assert found["status"] == "differs", found  # before: "no difference on 1 input(s)" (a fresh object)
    difference = found["difference"]
    assert difference["found_by"] == "sequence" and difference["kind"] == "returns"
    # shrunk to the shortest sequence that shows it: fill, reset, fill again
    assert difference["input"].startswith("obj = Tally(") and ".reset()" in difference["input"]
    assert difference["old"] == "returns 1" and difference["new"] == "returns 2"
    finding = behaviour_finding(data, "obj = Tally")
    assert finding["severity"] == "high" and data["approved"] is False
    test = finding["test"]
    assert test == difference["test"] and test.startswith("from tally import Tally\n")
    assert "obj.reset()\n" in test and "== 1\n" in test
    old, new = run_pasted(tmp_path, test, "tally", TALLY), run_pasted(tmp_path, test, "tally", NOT_RESET)
    assert old.returncode == 0, old.stdout  # the old code passes it
    assert new.returncode == 1 and "assert 2 == 1" in new.stdout, new.stdout  # the new code fails it


REGISTRY = '''class Registry:
    def __init__(self, owner):
        self.owner = owner
        self.items = {}

    def register(self, name, value):
        """Keep ``value`` under ``name``; the first registration of a name wins.

        >>> r = Registry("me")
        >>> r.register("a", 1)
        >>> r.register("a", 2)
        >>> r.items["a"]
        1
        """
        self.items.setdefault(name, value)
'''
OVERWRITES = REGISTRY.replace("self.items.setdefault(name, value)", "self.items[name] = value")


@needs_sandbox
def test_the_docstrings_examples_run_as_doctests_on_both_sides_and_the_broken_one_is_pasted_back(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff
    from acode.review.evidence.behaviour.findings import behaviour_findings

    context = branch_context(repo_with_branch(tmp_path / "r", {"reg.py": REGISTRY}, {"reg.py": OVERWRITES}),
                             "main")
    diff = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, seconds=2))
    [found] = diff.results
    # no single literal call shows it, and `items` is no method a call sequence reads: the doctest does
    assert found.status == "differs" and found.difference["found_by"] == "doctest", found
    assert (found.difference["old"], found.difference["new"]) == ("gives 1", "gives 2")
    assert found.difference["input"] == 'r = Registry("me"); r.register("a", 1); r.register("a", 2); r.items["a"]'
    [finding] = behaviour_findings(diff, "Let later registrations win")  # intent asks for the change...
    assert finding.severity == "high"  # ...but the docstring's example still says otherwise
    assert "the docstring's example r.items[\"a\"] gives 1" in finding.message
    assert run_pasted(tmp_path, finding.test, "reg", REGISTRY).returncode == 0
    assert run_pasted(tmp_path, finding.test, "reg", OVERWRITES).returncode == 1


AGE = '''def is_adult(age: int) -> bool:
    """True from the 18th birthday on."""
    return age >= 18
'''


@needs_sandbox
def test_a_refactoring_intent_with_a_behaviour_difference_rejects_without_asking_the_model(tmp_path):
    after = AGE.replace("return age >= 18", "return not age <= 18")
    data = review(tmp_path, {"age.py": AGE}, {"age.py": after}, "Refactor is_adult", answers=[])
    finding = behaviour_finding(data, "is_adult")
    assert finding["severity"] == "high" and "says it is a refactor" in finding["message"]
    assert "is_adult(18)" in finding["message"]  # the body's literal 18, the boundary the change moved
    assert "assert is_adult(18) is True" in finding["test"] or "assert is_adult(18) == True" in finding["test"]
    assert data["approved"] is False


@needs_sandbox
def test_a_behaviour_change_the_intent_asks_for_is_approved(tmp_path):
    after = AGE.replace("18th", "21st").replace("return age >= 18", "return age >= 21")
    data = review(tmp_path, {"age.py": AGE}, {"age.py": after}, "Raise the adult age from 18 to 21",
                  answers=["Yes", "Yes", "No", "No", "No", "Yes"])  # a change asked; the new outcome is right
    assert differences(data)["is_adult"]["status"] == "differs"
    finding = behaviour_finding(data, "is_adult")
    assert finding["status"] == "dismissed" and "finds the new outcome right" in finding["message"]
    assert data["approved"] is True


def test_the_pasted_test_asserts_the_old_outcome_of_each_kind_of_difference():
    from acode.review.evidence.behaviour import runner_pastable as pastable

    def step(old: dict, args=(1,), owner="", name="f", **extra) -> dict:
        return {"owner": owner, "name": name, "args": args, "kwargs": {}, "old": old, **extra}

    value = pastable.test_text("pkg.mod", "f", [step({"kind": "return", "value": [1, "a"]})], "result", "test_f")
    assert value == "from pkg.mod import f\n\n\ndef test_f():\n    assert f(1) == [1, 'a']\n"
    own = pastable.test_text("pkg.mod", "f", [step({"kind": "raise", "type": "TokenError", "module": "pkg.mod"})],
                             "result", "test_f")
    assert "from pkg.mod import TokenError, f" not in own and "from pkg.mod import TokenError" in own
    assert "    with pytest.raises(TokenError):\n        f(1)\n" in own
    hang = pastable.test_text("pkg.mod", "f", [step({"kind": "return", "value": 3}, new_kind="timeout")],
                              "result", "test_f")
    assert "signal.alarm(10)" in hang and "        assert f(1) == 3\n    finally:\n        signal.alarm(0)" in hang
    mutated = pastable.test_text("pkg.mod", "f", [step({"kind": "return", "value": None, "args": (([],), {})},
                                                       args=([2],))], "arguments", "test_f")
    assert "args = [[2]]" in mutated and "assert (args, kwargs) == ([[]], {})" in mutated
    with pytest.raises(pastable.NoTest):  # an object whose text says nothing has no literal to assert
        pastable.test_text("pkg.mod", "f", [step({"kind": "return", "value": object()})], "result", "test_f")


SLUGS = '''"""Slugs for titles.

>>> slug("Hello, World!")
'hello-world'
"""
import re


def words(text):
    return re.findall(r"[a-z0-9]+", text.lower())


def slug(text):
    return "-".join(words(text))
'''


@needs_sandbox
def test_the_examples_of_the_code_around_a_changed_function_run_on_both_sides(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff
    from acode.review.evidence.behaviour.findings import behaviour_findings

    after = SLUGS.replace('r"[a-z0-9]+"', 'r"[a-z0-9,!]+"')  # words() now keeps punctuation
    context = branch_context(repo_with_branch(tmp_path / "r", {"slugs.py": SLUGS}, {"slugs.py": after}), "main")
    diff = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, seconds=1))
    [check] = diff.results[0].docstring  # the module's example calls slug(), which calls the changed words()
    assert (check["where"], check["old_ok"], check["new_ok"]) == ("the module", True, False)
    assert check["new"] == "gives 'hello,-world!'"
    [finding] = behaviour_findings(diff, "Keep punctuation in words")
    assert finding.severity == "high" and "in the module's docstring) slug(\"Hello, World!\")" in finding.message


SLOW = '''import time


def settle(x: int) -> int:
    """The value once settled.

    >>> settle(7)
    7
    """
    return x
'''
# the same answer, only slower on 7: past the 2 s of a call, within the twice-as-long second run
SLOWER = SLOW.replace("    return x\n", "    if x == 7:\n        end = time.monotonic() + 3\n"
                                         "        while time.monotonic() < end:\n            pass\n    return x\n")


@pytest.mark.slow
@needs_sandbox
def test_a_slow_function_that_gives_the_same_answer_is_not_a_hang(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff

    context = branch_context(repo_with_branch(tmp_path / "r", {"slow.py": SLOW}, {"slow.py": SLOWER}), "main")
    [result] = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, seconds=1)).results
    assert result.status == "same", result.difference  # settle(7) ran out of 2 s, then returned 7 within 4 s
    assert result.docstring == [{"call": "settle(7)", "want": "7", "old_ok": True, "new_ok": True,
                                 "old": "returns 7", "new": "returns 7"}]


NOTES = '''class Notes:
    def __init__(self):
        self.items = []

    def add(self, text: str) -> int:
        self.items.append(text)
        return len(self.items)

    def save(self, path: str) -> None:
        with open(path, "w") as out:
            out.write("\\\\n".join(self.items))
'''


@needs_sandbox
def test_a_sequence_that_reaches_a_method_writing_files_is_left_out_not_the_whole_class(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff

    # keeps only the last three: a sequence of four adds shows it, many drawn before it also save
    forgets = NOTES.replace("self.items.append(text)", "self.items = [*self.items, text][-3:]")
    context = branch_context(repo_with_branch(tmp_path / "r", {"notes.py": NOTES}, {"notes.py": forgets}), "main")
    [result] = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, seconds=6)).results
    assert result.status == "differs" and result.difference["found_by"] == "sequence", result
    assert "save" not in result.difference["input"]  # the sandbox refuses the write: such sequences are skipped


POOL = '''class Pool:
    def __init__(self):
        self.free = 2

    def take(self) -> int:
        self.free -= 1
        return self.free
'''
# the second take waits for a free slot that never comes, in a retry loop whose bare except swallows the alarm
WAITS = POOL.replace("        self.free -= 1\n", """        while self.free <= 1:
            try:
                import re
                re.match(r'(a+)+$', 'a' * 40 + 'b')
            except:  # noqa: E722
                continue
        self.free -= 1
""")


@pytest.mark.slow
@needs_sandbox
def test_a_sequence_the_alarm_cannot_stop_is_a_hang_with_the_calls_that_led_to_it(tmp_path):
    from acode.review.change.git_context import branch_context
    from acode.review.evidence.behaviour.diff import Limits, run_behaviour_diff

    context = branch_context(repo_with_branch(tmp_path / "r", {"pool.py": POOL}, {"pool.py": WAITS}), "main")
    [found] = run_behaviour_diff(context, find_sandbox()[0], Limits(crosshair_seconds=0, plan_seconds=2)).results
    assert found.status == "differs" and found.difference["found_by"] == "time box", found
    assert found.difference["input"].startswith("obj = Pool(); ") and found.difference["input"].count("take()") >= 2
