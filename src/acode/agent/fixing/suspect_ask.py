"""Asking about one suspect function at a time: the test spectrum's first suspects (spectrum.py), each
shown alone (a method inside its class's header line) after the failing tests and their output, and the
model asked for that function corrected.

On a real project the whole-file prompts show up to 10,000 characters of modules chosen by name and by
traceback; the function the spectrum ranks first is often among them but drowned (or left out for room:
soupsieve's ``__init__.py`` filled the prompt before ``css_parser.py``). One function is a short reply, in
a file of any length, and the tests choose. The request, the tests and their output come first and are
the same for every suspect, so a prompt cache evaluates only each function and the instruction again.
A reply is merged by name into the whole file (merge.py) and may change only what was shown."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from acode.agent.fixing.rewrite import FileView, read_text
from acode.agent.fixing.spectrum import Suspect
from acode.llm.types import Message
from acode.prompts import render

SUSPECT_STOP = ["\n```\n"]  # one block is asked for: what follows it is explanation
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class SuspectAsk:
    view: FileView  # the whole file, ``shown_part`` the definition shown: what a reply is merged into
    shown: FileView  # what the prompt shows: the function (a method inside its classes' header lines)
    name: str  # the suspect's qualified name, as the prompt names it


def suspect_asks(suspects: list[Suspect], workspace: Path, limit: int) -> list[SuspectAsk]:
    """The first ``limit`` suspects that are distinct definitions of parsable Python files (a nested
    function or a comprehension is asked about as the function it is written in), most suspect first."""
    asks: list[SuspectAsk] = []
    texts: dict[Path, str] = {}
    for suspect in suspects:
        if len(asks) >= limit:
            break
        text = texts.setdefault(suspect.path, read_text(workspace / suspect.path))
        shown = definition_at(text, suspect.line)
        path = suspect.path.as_posix()
        if shown is None or any(a.view.path == path and a.shown.text == shown for a in asks):
            continue
        name = suspect.name.split(".<locals>")[0]
        asks.append(SuspectAsk(FileView(path, text, shown_part=shown), FileView(path, shown), name))
    return asks


def definition_at(text: str, line: int) -> str | None:
    """The top-level function of ``text`` that holds ``line``, or the method of a top-level class (after
    the class's header line(s)), as the file writes it. None for anything else (a nested class's method:
    merge.py replaces a nested class whole) or when the file does not parse."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    node = _holding(body, line)
    if isinstance(node, _FUNCS):
        return "\n".join(lines[_start(node) - 1 : node.end_lineno]) + "\n"
    method = _holding(node.body, line) if isinstance(node, ast.ClassDef) else None
    if not isinstance(method, _FUNCS) or not isinstance(node, ast.ClassDef):
        return None
    header = lines[_start(node) - 1 : node.body[0].lineno - 1]
    return "\n".join([*header, "", *lines[_start(method) - 1 : method.end_lineno]]) + "\n"


def _holding(body: list[ast.stmt], line: int) -> ast.stmt | None:
    return next((n for n in body if isinstance(n, (*_FUNCS, ast.ClassDef))
                 and _start(n) <= line <= (n.end_lineno or n.lineno)), None)


def _start(node: ast.stmt) -> int:
    return min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])


def suspect_messages(request: str, ask: SuspectAsk, context: list[FileView], command: str,
                     output: str) -> list[Message]:
    """The prompt about one suspect: the request, the tests, what they print, then the function."""
    user = render("acode.agent", "fix_suspect.j2", request=request, context=context, command=command,
                  output=output.rstrip(), shown=ask.shown, name=ask.name)
    return [Message.user(user)]
