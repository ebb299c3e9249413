"""The prompts of one fixing session, built once: the one call (whole files), the same prompt asking for
the one wrong line or only the function the failing tests reach, the fixer's own framing, and one
prompt for each suspect function (suspect_ask.py)."""

from __future__ import annotations

from dataclasses import dataclass

from acode.agent.fixing.file_view import FileView
from acode.agent.fixing.function_asks import FunctionAsk, reached_functions
from acode.agent.fixing.outcome import TestOutcome, printed, trim_output
from acode.agent.fixing.rewrite import one_call_messages, task_messages
from acode.agent.fixing.suspect_ask import SuspectAsk, suspect_messages
from acode.llm.types import Message


@dataclass(frozen=True)
class Framings:
    whole: list[list[Message]]  # the one call, then the fixer's own framing: replies are whole files
    line: list[Message]  # the one call's prompt asking for the wrong line only
    # (both empty when no file is shown: its only lines are past max_file_lines, and there are suspects)
    # each suspect's ask for the function corrected, and for its one wrong line
    suspects: list[tuple[SuspectAsk, list[Message], list[Message]]]
    # the one call's prompt asking for only a function the failing tests reach (function_asks.py)
    functions: list[tuple[FunctionAsk, list[Message]]]


def build_framings(request: str, shown: list[FileView], context: list[FileView], command: str,
                   before: TestOutcome, *, partial: bool, asks: list[SuspectAsk]) -> Framings:
    task = (request, shown, context, command)
    failing = not before.ok
    shown_output = trim_output(printed(before.output))  # as anyone would paste what the command printed
    return Framings(
        whole=[
            one_call_messages(*task, shown_output, failing=failing, partial=partial),
            task_messages(*task, trim_output(before.output), failing=failing, partial=partial),
        ] if shown else [],
        line=one_call_messages(*task, shown_output, failing=failing, partial=partial, line_edit=True)
        if shown else [],
        suspects=[(ask, suspect_messages(request, ask, context, command, shown_output),
                   suspect_messages(request, ask, context, command, shown_output, line_edit=True))
                  for ask in asks],
        functions=[(ask, one_call_messages(*task, shown_output, failing=failing, partial=partial,
                                           function=(ask.path, ask.name)))
                   for ask in reached_functions(shown, before.output, context)] if shown else [],
    )
