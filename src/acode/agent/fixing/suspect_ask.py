"""Asking about one suspect function at a time: the test spectrum's first suspects (spectrum.py), each
shown alone (its file's imports, the function, a method with its class's header) with the failing tests
and their output, and the model asked for that function corrected.

On a real project the whole-file prompts show up to 10,000 characters of modules chosen by name and by
traceback; the function the spectrum ranks first is often among them but drowned (or left out for room:
soupsieve's ``__init__.py`` filled the prompt before ``css_parser.py``). One function is a prompt a 1.5B
reads in seconds and a reply of a few hundred tokens, in any file of any length; the tests choose.
A reply is merged by name into the whole file (merge.py) and may change only what was shown."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from acode.agent.fixing.excerpt import excerpt
from acode.agent.fixing.locate import Focus
from acode.agent.fixing.rewrite import FileView, read_text
from acode.agent.fixing.spectrum import Suspect

SUSPECT_STOP = ["\n```\n"]  # one block is asked for: what follows it is explanation


@dataclass(frozen=True)
class SuspectAsk:
    view: FileView  # the whole file, ``shown_part`` the function shown: what a reply is merged into
    shown: FileView  # what the prompt shows: imports and the one definition
    name: str  # the suspect's qualified name, as the prompt names it


def suspect_asks(suspects: list[Suspect], workspace: Path, limit: int) -> list[SuspectAsk]:
    """The first ``limit`` suspects that are distinct definitions of parsable Python files (a nested
    function or comprehension is asked about as the function it is written in), most suspect first."""
    asks: list[SuspectAsk] = []
    seen: set[tuple[str, str]] = set()
    texts: dict[Path, str] = {}
    for suspect in suspects:
        if len(asks) >= limit:
            break
        text = texts.setdefault(suspect.path, read_text(workspace / suspect.path))
        name = suspect.name.split(".<locals>")[0]
        if not text or not _defines_at(text, suspect.line):
            continue
        path = suspect.path.as_posix()
        shown = excerpt(text, path, Focus(lines={suspect.line}), outline=False, max_chars=1)
        if shown is None or (path, shown) in seen:
            continue
        seen.add((path, shown))
        asks.append(SuspectAsk(FileView(path, text, shown_part=shown), FileView(path, shown), name))
    return asks


def _defines_at(text: str, line: int) -> bool:
    """Whether a function or method of ``text`` starts at ``line`` or holds it (the file parses)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
               and node.lineno <= line <= (node.end_lineno or node.lineno) for node in ast.walk(tree))
