"""Create a small git repository for trying `acode review`.

    python scripts/make_sample_repo.py DIR

`main` holds a small, sound user-lookup module with tests; the checked-out branch `feature` plants two
defects: an SQL query built by string formatting (injection) and an off-by-one in pagination.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

USERS_MAIN = '''"""User lookups over a sqlite3 connection."""

import sqlite3


def find_user(conn: sqlite3.Connection, name: str) -> tuple | None:
    """The user row whose name is exactly ``name``, or None."""
    cursor = conn.execute("SELECT id, name, email FROM users WHERE name = ?", (name,))
    return cursor.fetchone()


def page(items: list, number: int, size: int = 10) -> list:
    """Page ``number`` (starting at 1) of ``items``, ``size`` items per page."""
    start = (number - 1) * size
    return items[start : start + size]
'''

USERS_FEATURE = '''"""User lookups over a sqlite3 connection."""

import sqlite3


def find_user(conn: sqlite3.Connection, name: str) -> tuple | None:
    """The user row whose name is exactly ``name``, or None."""
    query = "SELECT id, name, email FROM users WHERE name = '%s'" % name
    cursor = conn.execute(query)
    return cursor.fetchone()


def find_users_by_domain(conn: sqlite3.Connection, domain: str) -> list[tuple]:
    """Every user whose email address ends with ``@domain``."""
    cursor = conn.execute("SELECT id, name, email FROM users WHERE email LIKE ?", ("%@" + domain,))
    return cursor.fetchall()


def page(items: list, number: int, size: int = 10) -> list:
    """Page ``number`` (starting at 1) of ``items``, ``size`` items per page."""
    start = number * size
    return items[start : start + size + 1]
'''

TESTS = '''from users import page


def test_first_page():
    assert page(list(range(25)), 1) == list(range(10))


def test_last_page():
    assert page(list(range(25)), 3) == list(range(20, 25))
'''


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def make_sample_repo(target: Path) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    if any(target.iterdir()):
        raise SystemExit(f"{target} is not empty; give an empty or new folder")
    git(target, "init", "-q", "-b", "main")
    git(target, "config", "user.email", "sample@example.com")
    git(target, "config", "user.name", "Sample Author")
    git(target, "config", "commit.gpgsign", "false")
    (target / "users.py").write_text(USERS_MAIN)
    (target / "test_users.py").write_text(TESTS)
    (target / "README.md").write_text("# users\n\nSmall user-lookup helpers.\n")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "User lookup helpers with tests")
    git(target, "switch", "-q", "-c", "feature")
    (target / "users.py").write_text(USERS_FEATURE)
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "Add find_users_by_domain and simplify queries",
        "-m", "Look users up by email domain; build the name query directly.")
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python scripts/make_sample_repo.py DIR")
    path = make_sample_repo(Path(sys.argv[1]))
    print(path)
