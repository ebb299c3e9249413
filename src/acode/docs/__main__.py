"""``python -m acode.docs --check | --write [--dir docs/reference]``: check or regenerate the reference
pages. ``--check`` exits 1 naming each missing entry and stale page, with the command that fixes them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from acode.docs.pages import default_sources, generate, problems, write


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m acode.docs", description=__doc__)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="exit 1 if a page is missing or stale")
    action.add_argument("--write", action="store_true", help="regenerate the pages")
    parser.add_argument("--dir", type=Path, default=Path("docs/reference"), help="where the pages live")
    args = parser.parse_args(argv)
    sources = default_sources()
    if args.write:
        for path in write(args.dir, generate(*sources)):
            print(f"wrote {path}")
        return 0
    found = problems(args.dir, *sources)
    for problem in found:
        print(problem, file=sys.stderr)
    if found:
        print("regenerate them with: python -m acode.docs --write", file=sys.stderr)
        return 1
    print(f"{args.dir}: the reference pages match the code")
    return 0


if __name__ == "__main__":
    sys.exit(main())
