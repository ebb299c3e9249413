"""When a small model should stop calling tools and answer. Seen with the real models (issue 28):

- the 0.5B, asked "what does @util.py do?", read the attached file twice and then put the user's own
  question back to them with ``ask_user``;
- the 1.5B, after a refused path, after a hook denied its command, and after a one-command task had
  run, toggled ``enter_plan_mode`` / ``exit_plan_mode`` for minutes instead of giving its answer.

So, within one user prompt:

- a file attached with ``@`` (its content is in the request) is not read again: the call is not run,
  the model is told to answer from the content it has, and (as after any repeat, see step_guidance)
  the read tools are left out of the next call;
- ``ask_user`` with the user's own question is not run;
- a plan-mode tool right after another one, with no other tool in between, is not run;
- after a refused path the user's request names ("read ../outside.txt": outside the workspace; a path the
  model chose on its own is its mistake to correct, and a task with more to do goes on), the same call
  failing (or denied) a second time, one of
  the last two calls above, or the one command the request consists of having run ("Run the shell
  command: touch x.txt"; the 1.5B went on to invent edits of x.txt), the next model call is constrained
  to a plain answer, which ends the turn.
"""

from __future__ import annotations

import difflib
import re

from acode.agent.loop.result import ToolStep
from acode.agent.session.at_refs import CONTENT_HEADER, READ_ONLY_LABEL, typed_text
from acode.llm.structured import tool_envelope_schema
from acode.llm.types import ToolCall, call_key
from acode.tools.base import ToolResult

ANSWER_ONLY_SCHEMA = tool_envelope_schema([], allow_answer=True)
PLAN_TOOLS = ("enter_plan_mode", "exit_plan_mode")
SHELL_TOOL = "run_shell_command"
MORE_WORK = {"and", "then", "after", "afterwards", "also", "until", "fix", "if"}
FRAMING_WORDS = 6  # "Run the shell command:" and the like
READ_TOOLS = ("read_file", "read_file_part")
SAME_QUESTION_RATIO = 0.8
_ATTACHED = re.compile(rf"^Content from @(.+?)(?:{re.escape(READ_ONLY_LABEL)})?:$", re.MULTILINE)
_WORDS = re.compile(r"[\w.]+")


def attached_files(request: str) -> set[str]:
    """The workspace-relative paths whose content the request carries (``@`` references)."""
    if CONTENT_HEADER not in request:
        return set()
    return set(_ATTACHED.findall(request.split(CONTENT_HEADER, 1)[1]))


def _words(text: str) -> str:
    return " ".join(_WORDS.findall(text.lower().replace("@", "")))


def is_own_question(typed: str, questions: list[str]) -> bool:
    """Whether one of ``questions`` is the user's request put back to them."""
    mine = _words(typed)
    return bool(mine) and any(
        difflib.SequenceMatcher(None, mine, _words(q)).ratio() >= SAME_QUESTION_RATIO for q in questions
    )


def is_the_request(typed: str, command: str) -> bool:
    """Whether the request is just this one command ("Run the shell command: touch x.txt"): the command
    appears in it and what is left is a few words of framing that ask for nothing more."""
    command = command.strip()
    if not command or command not in typed:
        return False
    rest = _words(typed.replace(command, " ")).split()
    return len(rest) <= FRAMING_WORDS and not MORE_WORK & set(rest)


class TurnGuards:
    """The guards of one user prompt; ``answer_next`` says why the next call may only answer."""

    def __init__(self, request: str):
        self.typed = typed_text(request)
        self.attached = attached_files(request)
        self.answer_next = ""
        self.failed: set[str] = set()  # calls that failed (or were denied) in this turn
        self.last_tool = ""

    def precheck(self, call: ToolCall) -> ToolResult | None:
        """A result that replaces running ``call``, or None."""
        if call.name in READ_TOOLS:
            path = str(call.arguments.get("file_path") or "").strip().removeprefix("./")
            if path in self.attached:
                return ToolResult(
                    error=f"not run: the content of {path} is already in the user's message (attached "
                    f"with @{path}) and has not changed. Use that content: answer from it.",
                    display=f"{path} is attached to the prompt: not read again",
                )
        questions = call.arguments.get("questions") if call.name == "ask_user" else None
        if isinstance(questions, list) and is_own_question(self.typed, [str(q) for q in questions]):
            return self._refuse(
                "not run: that is the user's own question to you. Answer it yourself from what you have.",
                "the model asked back the question it was given: not asked",
            )
        if call.name in PLAN_TOOLS and self.last_tool in PLAN_TOOLS:
            return self._refuse(
                f"not run: {call.name} right after {self.last_tool}, with nothing done in between. "
                "Answer the user now.",
                f"{call.name} right after {self.last_tool}: not run",
            )
        return None

    def _refuse(self, for_model: str, for_people: str) -> ToolResult:
        self.answer_next = for_people
        return ToolResult(error=for_model, display=for_people)

    def observe(self, step: ToolStep, result: ToolResult) -> None:
        """After each call: what it means for the next one."""
        self.last_tool = step.name
        if result.refused and _asked_for(self.typed, step.arguments):
            self.answer_next = f"{step.name} was refused: {result.error}"
        elif not step.ok and step.decision in ("allowed", "denied"):  # repeats, invalid calls: elsewhere
            key = call_key(step.name, step.arguments)
            if key in self.failed:
                self.answer_next = f"{step.name} failed again: {step.error}"
            self.failed.add(key)
        elif step.name == SHELL_TOOL and is_the_request(self.typed, str(step.arguments.get("command", ""))):
            self.answer_next = "the command the user asked for has run"

    def fallback_answer(self) -> str:
        """The turn's answer when the model asked for a tool anyway in an answer-only call (a backend that
        could not constrain it): why it was stopped."""
        return f"Stopped: {self.answer_next}."


def _asked_for(typed: str, arguments: dict) -> bool:
    """Whether a path-like argument of the call is something the user's own words name."""
    return any(isinstance(v, str) and len(v.strip()) >= 3 and v.strip() in typed for v in arguments.values())
