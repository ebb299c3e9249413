"""aider's working set in the chat: ``/add`` and ``/read-only`` keep files (folders, globs) in the
conversation across turns, ``/drop`` takes them out. An ``@`` reference is for one prompt only.

Each prompt then carries the files' current content, the way ``@`` references do (so the agent does not
read them again, see acode.agent.loop.turn_guards); read-only ones are marked so, and the approval policy
denies edits to them. Every file sent costs prompt time on a CPU (about 10 ms a token on two cores):
the notes after each prompt say how much is attached."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acode.agent.session.at_refs import expand_at_refs
from acode.cli.slash import ChatContext, register
from acode.tools.base import ToolContext


@dataclass
class WorkingSet:
    editable: list[str] = field(default_factory=list)
    read_only: list[str] = field(default_factory=list)

    @staticmethod
    def of(chat: Any) -> WorkingSet:
        """The chat's working set (it outlives /clear and /resume: it is the chat's, not the session's)."""
        found = getattr(chat, "working_set", None)
        if found is None:
            found = chat.working_set = WorkingSet()
        return found

    def guard(self, session: Any) -> None:
        """Tell the approval policy which paths are read-only for the next prompt."""
        session.guard_read_only(self.read_only)

    def add(self, refs: list[str], *, read_only: bool) -> None:
        target, other = (self.read_only, self.editable) if read_only else (self.editable, self.read_only)
        for ref in refs:
            if ref in other:
                other.remove(ref)
            if ref not in target:
                target.append(ref)

    def drop(self, refs: list[str]) -> list[str]:
        """Take ``refs`` out (all of them when empty); the ones that were there."""
        present = [*self.editable, *self.read_only]
        gone = [r for r in present if not refs or r in refs]
        self.editable = [r for r in self.editable if r not in gone]
        self.read_only = [r for r in self.read_only if r not in gone]
        return gone


def _checked(chat: ChatContext, args: str) -> list[str]:
    """The references in ``args`` that name files tools may see; a note for each that does not."""
    found = []
    ctx = ToolContext(workspace=chat.session.workspace)
    for raw in args.split():
        ref = raw.removeprefix("@").removeprefix("./")
        expansion = expand_at_refs(f"@{ref}", ctx)
        if expansion.included:
            found.append(ref)
        for note in expansion.skipped:
            chat.console.print(f"[yellow]not added:[/] {note}", highlight=False)
    return found


def _show(chat: ChatContext) -> None:
    files = WorkingSet.of(chat)
    if not (files.editable or files.read_only):
        chat.console.print("no files in the working set: /add FILE (editable), /read-only FILE (reference)")
        return
    for ref in files.editable:
        chat.console.print(f"  {ref}", markup=False, highlight=False)
    for ref in files.read_only:
        chat.console.print(f"  {ref}  (read-only)", markup=False, highlight=False)


@register("add", "Keep files in the conversation for every prompt (editable): /add FILE|FOLDER/|GLOB ...")
def add(chat: ChatContext, args: str) -> None:
    refs = _checked(chat, args)
    WorkingSet.of(chat).add(refs, read_only=False)
    if refs:
        chat.console.print(f"added {', '.join(refs)}: sent with every prompt until /drop", highlight=False)
    _show(chat)


@register("read-only", "Keep files in the conversation as reference; edits to them are denied")
def read_only(chat: ChatContext, args: str) -> None:
    refs = _checked(chat, args)
    WorkingSet.of(chat).add(refs, read_only=True)
    if refs:
        chat.console.print(f"read-only {', '.join(refs)}: sent with every prompt, edits denied",
                           highlight=False)
    _show(chat)


@register("drop", "Take files out of the working set (/drop with no names takes them all)")
def drop(chat: ChatContext, args: str) -> None:
    wanted = [a.removeprefix("@").removeprefix("./") for a in args.split()]
    gone = WorkingSet.of(chat).drop(wanted)
    chat.console.print(f"dropped {', '.join(gone)}" if gone else "nothing to drop", highlight=False)
    WorkingSet.of(chat).guard(chat.session)
