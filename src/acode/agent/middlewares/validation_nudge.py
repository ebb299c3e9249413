"""Validate before answering: when a request's work ends with files edited but nothing run since the
last edit, ask once for the validation step the system prompt's lifecycle requires.

Small models often stop after the edit and report a run that never happened; one reminder, only when
a command could actually run, costs a turn and keeps the answer honest."""

from __future__ import annotations

import logging

from acode.agent.loop.middleware import AgentState, Middleware
from acode.llm.types import ToolCall
from acode.prompts import render
from acode.tools.base import ToolRegistry, ToolResult

log = logging.getLogger("acode.agent")

SHELL_TOOL = "run_shell_command"


class ValidationNudge(Middleware):
    name = "validation_nudge"

    def __init__(self, registry: ToolRegistry, *, max_turns: int, shell_allowed_without_asking: bool):
        self.registry = registry
        self.max_turns = max_turns
        self.shell_allowed_without_asking = shell_allowed_without_asking
        self._edited: list[str] = []  # files edited since the last command ran
        self._nudged = False

    def on_user_prompt(self, state: AgentState, prompt: str) -> None:
        self._edited, self._nudged = [], False

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> None:
        tool = self.registry.get(call.name)
        if tool is None or not result.ok:
            return
        if tool.kind == "execute":
            self._edited = []
        elif tool.kind == "edit":
            path = str(call.arguments.get("file_path", ""))
            if path and path not in self._edited:
                self._edited.append(path)
        return

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        if self._nudged or not self._edited or SHELL_TOOL not in self.registry:
            return None
        if state.approval_mode == "plan" or state.turn + 1 >= self.max_turns:
            return None
        if not (state.interactive or state.approval_mode == "yolo" or self.shell_allowed_without_asking):
            return None  # a command would be denied: asking for one only wastes a turn
        self._nudged = True
        log.info("validation nudge after turn %d: %s edited, nothing run since", state.turn, self._edited)
        return render("acode.agent", "validate_nudge.j2", files=self._edited, shell_tool=SHELL_TOOL)
