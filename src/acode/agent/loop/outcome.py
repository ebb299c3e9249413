"""Did a one-shot run do what it went for? A model whose every edit was refused or failed still ends with
"Done." more often than not, and one asked to run what it wrote says it ran it when nothing ran; the
run must not report success on the strength of that text.

The rules read only the request and what the run's tool calls did, so they hold whatever the model says.
The change (``change_not_made``):

- no edit was attempted (a question, a review, a plan): nothing to judge;
- at least one edit went through: a change was made;
- every edit was denied or failed, and no command or sub-agent ran that could have changed a file in
  its place: the requested change was not made.

The run (``action_not_done``): the request ordered a run ("... then run it", "run the tests") and no
command ran after the last edit that went through, even after the loop's one reminder (see
acode.agent.loop.requested_run for how the request is read).
"""

from __future__ import annotations

from collections.abc import Sequence

from acode.agent.loop.result import ToolStep
from acode.agent.loop.stops import AgentStop
from acode.tools.base import ToolRegistry

# tools that may change files besides the edit tools (a shell command, a sub-agent's own edits)
_MAY_CHANGE_FILES = ("execute", "agent")


class ChangeNotMade(AgentStop):
    reason = "change_not_made"


class ActionNotDone(AgentStop):
    reason = "action_not_done"


def unmade_change(steps: Sequence[ToolStep], registry: ToolRegistry) -> str | None:
    """Why the requested change was not made, or None when it was (or none was attempted)."""

    def kind(step: ToolStep) -> str | None:
        tool = registry.get(step.name)
        return tool.kind if tool is not None else None

    edits = [s for s in steps if kind(s) == "edit"]
    if not edits or any(s.decision == "allowed" and s.ok for s in edits):
        return None
    if any(kind(s) in _MAY_CHANGE_FILES and s.decision == "allowed" and s.ok for s in steps):
        return None
    denied = sum(1 for s in edits if s.decision != "allowed")
    failed = len(edits) - denied
    counts = ", ".join(f"{n} {word}" for n, word in ((denied, "denied"), (failed, "failed")) if n)
    last = edits[-1]
    target = last.arguments.get("file_path") or last.arguments.get("path") or ""
    why = " ".join((last.error or last.decision).split())
    call = f"{last.name} {target}".strip()
    return f"the requested change was not made (edits: {counts}); last: {call}: {why}"
