"""A module of helpers and a change to it that alters behaviour, for the behavioural diff."""

from __future__ import annotations

HELPERS = '''"""Small helpers."""


def bearer_token(headers: dict) -> str:
    """The token of an ``Authorization: Bearer`` header; PermissionError without one."""
    auth = headers.get("Authorization", "")
    if not auth or not auth.startswith("Bearer "):
        raise PermissionError("no token")
    return auth[len("Bearer "):]


def timeout_of(options: dict) -> float:
    """The timeout in seconds; 30 when none is set.

    >>> timeout_of({"timeout": 0})
    0
    >>> timeout_of({})
    30
    """
    value = options.get("timeout")
    return 30 if value is None else value


def first_negative(rows: list) -> int | None:
    for row in rows:
        if row < 0:
            return row
    return None


def total(a, b):
    return a + b


def save(path):
    with open(path, "w") as out:
        out.write("x")
    return 1


class Cache:
    def __init__(self, size):
        self.size = size

    def key(self, a, b):
        return (a, b)
'''


# the five changes: `and` for `or` in the auth check, `x or default` with 0 valid, a loop that returns on its
# first item, a pure rewrite (no difference), and two functions that cannot be run (I/O, no constructor)
CHANGED = (HELPERS.replace("if not auth or not auth", "if not auth and not auth")
           .replace("return 30 if value is None else value", "return value or 30")
           .replace("            return row\n    return None", "            return row\n        return None")
           .replace("return a + b", "result = a + b\n    return result")
           .replace('out.write("x")', 'out.write("y")').replace("return (a, b)", "return (a,)"))
