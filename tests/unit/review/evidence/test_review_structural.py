"""The structural diff check on real code: protections a change removes or weakens, read from the syntax
trees of the old and new function."""

from __future__ import annotations

from tests.helpers.review_fakes import repo_with_branch

from acode.review.change.git_context import branch_context
from acode.review.evidence.gathering import structural_findings
from acode.review.evidence.structural import is_safety_call, structural_changes

SAFE_OPEN = '''from pathlib import Path

BASE = Path("/srv/files")


def open_shared(name: str) -> bytes:
    """Read a file under BASE; names that leave it are refused."""
    target = (BASE / name).resolve()
    if not target.is_relative_to(BASE):
        raise PermissionError(f"{name} is outside the shared folder")
    return target.read_bytes()
'''


def kinds(old: str, new: str) -> list[tuple[str, str, str]]:
    return [(w.kind, w.what, w.old_text) for w in structural_changes(old, new)]


def test_a_removed_confinement_guard_is_reported_with_the_old_line():
    new = SAFE_OPEN.replace('    if not target.is_relative_to(BASE):\n'
                            '        raise PermissionError(f"{name} is outside the shared folder")\n', "")
    [change] = structural_changes(SAFE_OPEN, new)
    assert (change.kind, change.what, change.function) == ("removed", "guard-raise", "open_shared")
    assert change.old_text == "if not target.is_relative_to(BASE):" and change.old_line == 9


def test_a_loosened_bound_is_reported():
    old = ('def set_quantity(order, quantity):\n    if quantity < 1 or quantity > 100:\n'
           '        raise ValueError("quantity must be 1..100")\n    order.quantity = quantity\n')
    assert kinds(old, old.replace("quantity > 100", "quantity > 10000")) == [
        ("weakened", "guard-raise", "if quantity < 1 or quantity > 100:")]
    assert kinds(old, old.replace("quantity < 1 or ", "")) == [
        ("weakened", "guard-raise", "if quantity < 1 or quantity > 100:")]
    single = 'def f(n):\n    if n >= 10:\n        raise ValueError(n)\n    return n\n'
    assert kinds(single, single.replace("n >= 10", "n > 10"))[0][:2] == ("weakened", "guard-raise")
    # tightening is not a weakening
    assert kinds(old, old.replace("quantity > 100", "quantity > 50")) == []


def test_an_exception_handler_made_to_swallow_is_reported():
    old = '''import time


def fetch(get, url, attempts=3):
    for attempt in range(attempts):
        try:
            return get(url)
        except ConnectionError:
            if attempt == attempts - 1:
                raise
            time.sleep(2 ** attempt)
'''
    new = old.replace("        except ConnectionError:\n            if attempt == attempts - 1:\n                raise\n",
                      "        except Exception:\n")
    found = kinds(old, new)
    assert ("weakened", "except", "except ConnectionError:") in found
    narrow_to_broad = ('def f(go):\n    try:\n        go()\n    except KeyError:\n        return None\n')
    assert kinds(narrow_to_broad, narrow_to_broad.replace("KeyError", "Exception"))[0][:2] == ("weakened", "except")


def test_a_constant_time_comparison_replaced_by_equality_is_reported():
    old = ('import hmac\n\n\ndef valid_signature(sent: str, expected: str) -> bool:\n'
           '    return hmac.compare_digest(sent, expected)\n')
    new = old.replace("hmac.compare_digest(sent, expected)", "sent == expected")
    [change] = structural_changes(old, new)
    assert (change.kind, change.what) == ("removed", "call") and "compare_digest" in change.detail


def test_removed_assert_lock_finally_and_authorisation_are_reported():
    old = '''import threading

LOCK = threading.Lock()


class Account:
    def withdraw(self, user, amount):
        if not user.can_withdraw(self):
            raise PermissionError("not your account")
        assert amount > 0
        with LOCK:
            self.balance -= amount
        handle = self.journal.open()
        try:
            handle.write(amount)
        finally:
            handle.close()
'''
    new = '''import threading

LOCK = threading.Lock()


class Account:
    def withdraw(self, user, amount):
        self.balance -= amount
        handle = self.journal.open()
        handle.write(amount)
'''
    found = {(w.what, w.old_text) for w in structural_changes(old, new)}
    assert found == {("guard-raise", "if not user.can_withdraw(self):"), ("assert", "assert amount > 0"),
                     ("lock", "with LOCK:"), ("finally", "finally:")}


def test_rewrites_that_keep_the_protection_are_not_reported():
    assert_version = 'def f(n):\n    assert n > 0, "n must be positive"\n    return n * 2\n'
    raise_version = ('def f(n):\n    if n <= 0:\n        raise ValueError(f"n must be positive, got {n}")\n'
                     '    return n * 2\n')
    assert structural_changes(assert_version, raise_version) == []
    moved = ('def check(n):\n    if n <= 0:\n        raise ValueError(n)\n\n\n'
             'def f(n):\n    check(n)\n    return n * 2\n')
    assert structural_changes(raise_version, moved) == []
    renamed = raise_version.replace("def f(", "def double(")
    assert structural_changes(raise_version, renamed) == []  # a renamed function is not compared
    docs = raise_version.replace("def f(n):\n", 'def f(n):\n    """Double n."""\n')
    assert structural_changes(raise_version, docs) == []
    assert structural_changes("def f(:\n", raise_version) == []  # old version does not parse


def test_safety_calls_are_recognised_by_the_words_of_their_name():
    assert all(map(is_safety_call, ["validate_path", "check_permission", "isAdmin", "quote", "compare_digest",
                                    "secure_filename", "ensure_owner", "require_login"]))
    assert not any(map(is_safety_call, ["unquote", "invalidate_cache", "load", "checksum", "render"]))


def test_structural_evidence_from_a_branch_points_at_the_change(tmp_path):
    new = SAFE_OPEN.replace('    if not target.is_relative_to(BASE):\n'
                            '        raise PermissionError(f"{name} is outside the shared folder")\n', "")
    repo = repo_with_branch(tmp_path / "r", {"files.py": SAFE_OPEN}, {"files.py": new})
    [finding] = structural_findings(branch_context(repo))
    assert (finding.source, finding.rule, finding.severity, finding.dimension) == (
        "structural", "structural/removed-guard-raise", "high", "safety")
    assert finding.file == "files.py" and finding.line == 9  # where the guard stood, in the new file
    assert finding.quote == "if not target.is_relative_to(BASE):" and "old line 9" in finding.message


def test_a_check_moved_into_a_helper_the_change_adds_is_not_removed():
    old = ('import subprocess\n\n\ndef git(root, *args, check=True):\n'
           '    out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)\n'
           '    if check and out.returncode != 0:\n        raise RuntimeError(out.stderr)\n    return out.stdout\n')
    helper = ('import subprocess\n\n\ndef run_git(root, *args, check=True):\n'
              '    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)\n'
              '    if check and done.returncode != 0:\n        raise RuntimeError(done.stderr)\n    return done\n')
    new = 'from gitcmd import run_git\n\n\ndef git(root, *args, check=True):\n    return run_git(root, *args).stdout\n'
    from acode.review.evidence.structural import added_helpers
    assert structural_changes(old, new) != []  # on its own, the guard is gone
    assert structural_changes(old, new, added_helpers(None, helper)) == []  # it moved into run_git
    passes_it_on = new.replace("run_git(root, *args)", "run_other(root, *args, check=check)")
    assert structural_changes(old, passes_it_on) == []  # the value the guard tested is handed over


def test_an_environment_check_is_not_input_validation():
    old = ('import shutil\n\n\ndef repo_root(start):\n    if shutil.which("git") is None:\n'
           '        raise RuntimeError("git is missing")\n    return start\n')
    [change] = structural_changes(old, 'import shutil\n\n\ndef repo_root(start):\n    return start\n')
    assert change.what == "guard-raise" and change.on_input is False
    [change] = structural_changes(SAFE_OPEN, SAFE_OPEN.replace(
        '    if not target.is_relative_to(BASE):\n        raise PermissionError(f"{name} is outside the shared folder")\n',
        ""))
    assert change.on_input is True


def test_a_bound_scaled_up_is_a_loosened_bound():
    old = ('MAX = 200\n\n\ndef page(rows, size):\n    if size < 1 or size > MAX:\n'
           '        raise ValueError(size)\n    return rows[:size]\n')
    assert kinds(old, old.replace("size > MAX", "size > MAX * 100"))[0][:2] == ("weakened", "guard-raise")
    assert kinds(old, old.replace("size > MAX", "size > MAX - 10")) == []
