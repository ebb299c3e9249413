"""Replies a scripted model gives the fixer's line asks: a one-line diff, the file echoed, the 0.5B's
placeholder."""

from __future__ import annotations

from tests.helpers.fixing_calc import BUGGY, reply


def diff(old: str, new: str) -> str:
    return f"```diff\n-{old}\n+{new}\n```\n"


def echo() -> str:
    return reply(BUGGY)


# what the real 0.5B writes for calc.py on most of its line asks: the instruction's own example block
PLACEHOLDER_REPLY = "```diff\n-<the wrong line, as it is in calc.py>\n+<the corrected line>\n```\n"
