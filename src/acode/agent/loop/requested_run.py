"""Did the model run what the user asked it to run? Asked "create hello.py that prints hello, then run
it", the real 0.5B wrote hello.py and answered "Created hello.py and ran it" without running anything
(issue 28). A result must never say more than what happened.

Read without a model call, from the words of the request and the tool calls made:

- the request asks for a run when one of its clauses is an order that starts with run / execute / test
  ("... then run it", "Please run the tests", "can you execute main.py?"). A question ("how do I run
  X?"), a clause that only mentions running ("write a script that runs the tests", "don't run it") or
  a request to write only asks for none;
- it was run when, after the last edit that went through, a command (a tool of kind ``execute``) or a
  sub-agent ran: allowed and not stopped by a tool error. A command that ran and failed did run: what it
  showed is the model's to report.

When the model answers before that, it is reminded once (a message to the model only) and its next
call may only run a command: the real 0.5B, reminded in words alone, answered again with the reminder's
own words. Once that command has run, the next call may only answer (the model had given its answer
already; left free, the 0.5B rewrote hello.py after running it and answered with the loop's own
guidance). A one-shot run whose model still answers without running it (a backend that cannot constrain
its output) ends with ``action_not_done`` (acode.agent.loop.outcome).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from acode.agent.loop.result import ToolStep
from acode.llm.structured import tool_envelope_schema
from acode.prompts import render
from acode.tools.base import ToolRegistry

RUN_VERBS = {"run", "rerun", "re-run", "execute", "exec"}
# "test" is an order only before what is to be tested ("test it"), not as a noun ("test files for x")
TEST_OBJECTS = {"it", "them", "this", "that", "everything", "the", "my", "your", "all"}
QUESTION_WORDS = {"how", "what", "why", "where", "when", "which", "who", "whose", "is", "are", "does", "do",
                  "did", "should", "shall", "may", "might", "i", "we"}
# words before the verb that keep a clause an order ("then run it", "could you please run the tests")
LEAD_INS = ("please", "also", "then", "and", "now", "finally", "just", "next", "afterwards", "after that",
            "can you", "could you", "would you", "will you", "kindly", "go ahead and", "try to", "pls")
_FENCED = re.compile(r"```.*?(```|$)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSES = re.compile(r",|\band then\b|\band\b|\bthen\b", re.IGNORECASE)
_WORD = re.compile(r"[\w'-]+")
RAN_KINDS = ("execute", "agent")  # a sub-agent may have run it in its own steps
QUOTE_CHARS = 200


def asked_to_run(typed: str) -> str:
    """The clause of the request that orders a run ("run it"), or "" when it asks for none. Code the
    request quotes is not read as words ("`npm run build` fails"; a pasted block)."""
    quoted: list[str] = []

    def hide(match: re.Match) -> str:
        quoted.append(match.group(0))
        return f"\0{len(quoted) - 1}\0"

    prose = _INLINE_CODE.sub(hide, _FENCED.sub("\n", typed))
    for sentence in _SENTENCES.split(prose.strip()):
        words = _WORD.findall(sentence.lower())
        if not words or (sentence.rstrip().endswith("?") and words[0] in QUESTION_WORDS):
            continue
        for clause in _CLAUSES.split(sentence):
            if _is_run_order(clause):
                clause = re.sub(r"\0(\d+)\0", lambda m: quoted[int(m.group(1))], clause)
                return " ".join(clause.split()).rstrip(".!?;:")
    return ""


def _is_run_order(clause: str) -> bool:
    text = " ".join(clause.lower().split())
    stripped = True
    while stripped:
        stripped = False
        for lead in LEAD_INS:
            if text.startswith(lead + " "):
                text, stripped = text[len(lead) + 1 :], True
    words = _WORD.findall(text)
    if not words or not text.startswith(words[0]):
        return False
    if words[0] in RUN_VERBS:
        return not text[len(words[0]) :].startswith((".", "("))  # "run.py": a file; "run(x)": code
    return words[0] == "test" and len(words) > 1 and (words[1] in TEST_OBJECTS or "." in text.split()[1])


def _kind(step: ToolStep, registry: ToolRegistry) -> str | None:
    tool = registry.get(step.name)
    return tool.kind if tool is not None else None


def _went_through(step: ToolStep) -> bool:
    return step.decision == "allowed" and step.ok


def _since_last_edit(
    steps: Sequence[ToolStep], registry: ToolRegistry
) -> tuple[list[ToolStep], ToolStep | None]:
    """The steps after the last edit that went through, and that edit (None: no edit)."""
    for index in range(len(steps) - 1, -1, -1):
        if _kind(steps[index], registry) == "edit" and _went_through(steps[index]):
            return list(steps[index + 1 :]), steps[index]
    return list(steps), None


def _target(step: ToolStep) -> str:
    args = step.arguments
    return f"{step.name} {args.get('file_path') or args.get('command') or ''}".strip()[:80]


class RequestedRun:
    """The run one user prompt orders, and whether the model was reminded of it."""

    def __init__(self, typed: str, registry: ToolRegistry):
        self.typed = typed
        self.asked = asked_to_run(typed)
        self.registry = registry
        self.reminded = False
        self.run_next = False  # the call after the reminder may only run a command

    def _runs(self, steps: Sequence[ToolStep]) -> tuple[list[ToolStep], ToolStep | None]:
        """The run attempts after the last edit, and that edit."""
        after, edit = _since_last_edit(steps, self.registry)
        return [s for s in after if _kind(s, self.registry) in RAN_KINDS], edit

    def missing(self, steps: Sequence[ToolStep]) -> str | None:
        """Why the ordered run did not happen, or None (it happened, or none was ordered)."""
        if not self.asked:
            return None
        runs, edit = self._runs(steps)
        if any(_went_through(s) for s in runs):
            return None
        since = f" after {_target(edit)}" if edit is not None else ""
        if runs:
            last = runs[-1]
            why = " ".join((last.error or last.decision).split())
            return f"the requested run did not happen (asked: {self.asked!r}); last: {_target(last)}: {why}"
        return f"the requested run did not happen (asked: {self.asked!r}): nothing ran{since}"

    def reminder(self, steps: Sequence[ToolStep]) -> str | None:
        """The one message that tells the model its answer comes before the run it was asked for; None
        when there is nothing to remind (or it was done already). A run that was attempted and refused
        is not asked for again: it would only be refused again."""
        if self.reminded or self.missing(steps) is None:
            return None
        runs, edit = self._runs(steps)
        shell = next((t.name for t in self.registry if t.kind == "execute"), None)
        if runs or shell is None:
            return None
        self.reminded = self.run_next = True
        return render(
            "acode.agent",
            "run_reminder.j2",
            asked=self.asked,
            request=self.typed[:QUOTE_CHARS],
            edited=str(edit.arguments.get("file_path") or "") if edit is not None else "",
            shell_tool=shell,
        )

    def run_only(self) -> dict | None:
        """The constraint of the call after the reminder (a command tool, no answer), once; else None."""
        if not self.run_next:
            return None
        self.run_next = False
        commands = [tool.spec() for tool in self.registry if tool.kind == "execute"]
        return tool_envelope_schema(commands, allow_answer=False)

    def ran_after_reminder(self, steps: Sequence[ToolStep]) -> bool:
        """Whether these steps (one turn's) ran a command after the reminder."""
        return self.reminded and any(
            _kind(s, self.registry) in RAN_KINDS and _went_through(s) for s in steps
        )
