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

from acode.agent.fixing.file_view import FileView, read_text
from acode.agent.fixing.line_edit import apply_line_edit
from acode.agent.fixing.localise.excerpt import span
from acode.agent.fixing.localise.spectrum import Suspect
from acode.llm.types import Message
from acode.prompts import render

SUSPECT_STOP = ["\n```\n"]  # one block is asked for: what follows it is explanation
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class SuspectAsk:
    view: FileView  # the whole file, ``shown_part`` the definition shown: what a reply is merged into
    shown: FileView  # what the prompt shows: the function (a method inside its classes' header lines)
    name: str  # the suspect's qualified name, as the prompt names it
    lines: tuple[int, int] = (0, 0)  # the definition's first and last line in the file


def suspect_asks(suspects: list[Suspect], workspace: Path, limit: int) -> list[SuspectAsk]:
    """The first ``limit`` suspects that are distinct definitions of parsable Python files (a nested
    function or a comprehension is asked about as the function it is written in), most suspect first."""
    asks: list[SuspectAsk] = []
    files: dict[Path, tuple[str, list[tuple[int, int, str]]]] = {}
    for suspect in suspects:
        if len(asks) >= limit:
            break
        if suspect.path not in files:  # each file read and parsed once
            text = read_text(workspace / suspect.path)
            files[suspect.path] = (text, askable_definitions(text))
        text, definitions = files[suspect.path]
        found = next((d for d in definitions if d[0] <= suspect.line <= d[1]), None)
        path = suspect.path.as_posix()
        if found is None or any(a.view.path == path and a.shown.text == found[2] for a in asks):
            continue
        first, last, shown = found
        name = suspect.name.split(".<locals>")[0]
        asks.append(SuspectAsk(FileView(path, text, shown_part=shown), FileView(path, shown), name,
                               (first, last)))
    return asks


def askable_definitions(text: str) -> list[tuple[int, int, str]]:
    """(first line, last line, the text a prompt shows) of each top-level function of ``text`` and each
    method of a top-level class (shown after the class's header lines), as the file writes them. Not a
    nested class's methods (merge.py replaces a nested class whole); none when the file does not parse."""
    try:
        body = ast.parse(text).body
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines()

    def written(node: ast.stmt) -> list[str]:
        first, last = span(node)
        return lines[first - 1 : last]

    found = []
    for node in body:
        if isinstance(node, _FUNCS):
            found.append((*span(node), "\n".join(written(node)) + "\n"))
        elif isinstance(node, ast.ClassDef):  # the header ends before the first statement's decorators
            header = lines[span(node)[0] - 1 : span(node.body[0])[0] - 1]
            found += [(*span(method), "\n".join([*header, "", *written(method)]) + "\n")
                      for method in node.body if isinstance(method, _FUNCS)]
    return found


def suspect_messages(request: str, ask: SuspectAsk, context: list[FileView], command: str,
                     output: str, *, line_edit: bool = False) -> list[Message]:
    """The prompt about one suspect: the request, the tests, what they print, then the function, and the
    function corrected asked for (``line_edit``: only its one wrong line)."""
    user = render("acode.agent", "fix_suspect.j2", request=request, context=context, command=command,
                  output=output.rstrip(), shown=ask.shown, name=ask.name, line_edit=line_edit)
    return [Message.user(user)]


def line_reply_as_function(reply: str, ask: SuspectAsk) -> str | None:
    """A reply to the line ask about ``ask`` as a reply of the whole function (its path, then the function
    with that line changed, in a python block), so it is merged like one; None when its line is not in
    the function or the edit breaks it."""
    edit = apply_line_edit(reply, [ask.shown])
    if isinstance(edit, str):
        return None
    return f"{ask.view.path}\n```python\n{edit[ask.shown.path]}```\n"
