"""Plan mode: the model researches with read-only tools and writes a Markdown plan into the session's
plans folder (``.acode/plans/<session>/``); ``exit_plan_mode`` shows the plan for approval.

Approve -> the approval mode becomes default or auto_edit, ``AgentState.approved_plan`` keeps the path
and the system prompt tells the model to follow it. Reject -> the user's feedback goes back to the
model, which stays in plan mode. Non-interactive runs approve only with ``--approve-plan`` (then edits
run as in auto_edit, since nobody can answer approval questions); otherwise the session ends with
the plan as its answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from acode.agent.loop.middleware import AgentState, Middleware, ToolDecision
from acode.agent.loop.stops import AgentStop
from acode.llm.types import Message, ToolCall
from acode.prompts import render
from acode.tools.base import Tool, ToolContext, ToolError, ToolResult

log = logging.getLogger("acode.agent.plan")

EDIT_TOOLS = ("write_file", "replace")
ENTER, EXIT = "enter_plan_mode", "exit_plan_mode"


def plans_dir(workspace: Path, session_id: str) -> Path:
    return workspace.resolve() / ".acode" / "plans" / (session_id or "current")


@dataclass
class PlanDecision:
    approved: bool
    mode: str = "default"  # default | auto_edit, after approval
    feedback: str = ""


PlanApprover = Callable[[Path, str], PlanDecision]


class PlanNotApproved(AgentStop):
    reason = "plan_not_approved"


class EnterPlanModeArgs(BaseModel):
    reason: str | None = Field(None, description="Why a plan is needed first (optional).")


class EnterPlanMode(Tool):
    name = ENTER
    description = (
        "Switch to plan mode before a large or risky change: only read-only tools run, and you write a "
        "Markdown plan into your plans folder, then call exit_plan_mode for the user's approval."
    )
    Args = EnterPlanModeArgs
    kind = "interact"

    def run(self, args: EnterPlanModeArgs, ctx: ToolContext) -> ToolResult:
        folder = plans_dir(ctx.workspace, ctx.session_id)
        return ToolResult(
            output=f"Entering plan mode. Plans folder: {folder}", data={"plans_dir": str(folder)}
        )


class ExitPlanModeArgs(BaseModel):
    plan_filename: str = Field(description="The plan's file name in your plans folder, e.g. 'plan.md'.")


class ExitPlanMode(Tool):
    name = EXIT
    description = "Show your finished Markdown plan to the user for approval (plan mode only)."
    Args = ExitPlanModeArgs
    kind = "interact"

    def run(self, args: ExitPlanModeArgs, ctx: ToolContext) -> ToolResult:
        folder = plans_dir(ctx.workspace, ctx.session_id)
        path = resolve_plan_path(folder, ctx.workspace, args.plan_filename)
        if path is None:
            raise ToolError(f"The plan must be a .md file inside {folder}; got '{args.plan_filename}'.")
        if not path.is_file():
            raise ToolError(f"No plan file at {path}: write it with write_file first.")
        text = path.read_text(encoding="utf-8", errors="replace")
        if not text.strip():
            raise ToolError(f"The plan file {path} is empty: write the plan first.")
        return ToolResult(output=text, data={"plan_path": str(path), "plan": text})


def plan_tools(names: tuple[str, ...] = (ENTER, EXIT)) -> list[Tool]:
    return [tool for tool in (EnterPlanMode(), ExitPlanMode()) if tool.name in names]


def resolve_plan_path(folder: Path, workspace: Path, raw: str) -> Path | None:
    """The plan file for ``raw`` (a bare name means the plans folder) if it is Markdown inside it."""
    given = Path(raw)
    if not given.is_absolute():
        given = folder / given if len(given.parts) == 1 else workspace.resolve() / given
    path = given.resolve()
    if path.suffix.lower() != ".md" or folder.resolve() not in path.parents:
        return None
    return path


class PlanMode(Middleware):
    name = "plan_mode"

    def __init__(
        self,
        *,
        approver: PlanApprover | None = None,
        approve_plan: bool = False,
        ctx: ToolContext | None = None,
        mode_notes: dict[str, str] | None = None,
    ):
        self.approver = approver
        self.approve_plan = approve_plan
        self.ctx = ctx
        self.mode_notes = mode_notes or {}
        self.previous_mode = "default"
        self._announced = False
        self.folder: Path | None = None

    def on_session_start(self, state: AgentState) -> None:
        self.folder = plans_dir(state.workspace, state.session_id)
        if self.ctx is not None and self.folder not in self.ctx.extra_writable:
            self.ctx.extra_writable = (*self.ctx.extra_writable, self.folder)
        self._announced = False

    # -- switching ---------------------------------------------------------------------------
    def enter(self, state: AgentState) -> None:
        if state.approval_mode != "plan":
            self.previous_mode = state.approval_mode
            self._switch(state, "plan")
        self._announced = False

    def leave(self, state: AgentState, mode: str | None = None) -> None:
        self._switch(state, mode or self.previous_mode)

    def _switch(self, state: AgentState, mode: str) -> None:
        old = state.approval_mode
        state.approval_mode = mode
        if state.history and state.history[0].role == "system":
            before = f"Approval mode: {old}. {self.mode_notes.get(old, '')}".rstrip()
            after = f"Approval mode: {mode}. {self.mode_notes.get(mode, '')}".rstrip()
            content = state.history[0].content.replace(before, after)
            state.history[0] = Message.system(content)
        log.info("approval mode %s -> %s", old, mode)

    # -- hooks -------------------------------------------------------------------------------
    def before_model(self, state: AgentState) -> None:
        if state.approval_mode != "plan" or self._announced:
            return
        self._announced = True
        note = render("acode.agent", "plan_mode.j2", plans_dir=str(self._folder(state)))
        last = state.history[-1] if state.history else None
        if last is not None and last.role == "user":
            shown = last.shown if last.shown is not None else last.content  # the person's words stay theirs
            state.history[-1] = last.model_copy(update={"content": f"{last.content}\n\n{note}",
                                                        "shown": shown})
        else:
            state.history.append(Message.internal(note))

    def before_tool(self, state: AgentState, call: ToolCall) -> ToolDecision | None:
        if state.approval_mode != "plan" or call.name not in EDIT_TOOLS:
            return None
        raw = call.arguments.get("file_path")
        folder = self._folder(state)
        if isinstance(raw, str) and resolve_plan_path(folder, state.workspace, raw) is not None:
            return None
        return ToolDecision(
            "deny", f"denied: in plan mode only Markdown plan files inside {folder} may be written."
        )

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> ToolResult | None:
        if not result.ok or call.name not in (ENTER, EXIT):
            return None
        if call.name == ENTER:
            self.enter(state)
            self._announced = True
            return ToolResult(
                output=render("acode.agent", "plan_mode.j2", plans_dir=str(self._folder(state)))
            )
        if state.approval_mode != "plan":
            return ToolResult(error="exit_plan_mode only works in plan mode; you are not in plan mode.")
        assert result.data is not None
        return self._review(state, Path(result.data["plan_path"]), result.data["plan"])

    def _review(self, state: AgentState, path: Path, plan: str) -> ToolResult:
        decision = self._decide(state, path, plan)
        if decision.approved:
            mode = decision.mode if decision.mode in ("default", "auto_edit") else "default"
            self.leave(state, mode)
            state.approved_plan = path
            self._note_approved_plan(state, path)
            return ToolResult(
                output=render("acode.agent", "plan_approved.j2", plan_path=str(path), mode=mode)
            )
        feedback = decision.feedback.strip() or "(no reason given)"
        log.info("plan %s rejected: %s", path, feedback)
        return ToolResult(
            output=f"The user did not approve the plan. Feedback: {feedback}\n"
            "Stay in plan mode: revise the plan file, then call exit_plan_mode again."
        )

    def _decide(self, state: AgentState, path: Path, plan: str) -> PlanDecision:
        if state.interactive and self.approver is not None:
            return self.approver(path, plan)
        if self.approve_plan:
            return PlanDecision(approved=True, mode="auto_edit")
        raise PlanNotApproved(
            f"the plan in {path} needs approval: run again with --approve-plan to carry it out",
            partial=plan,
            plan_path=str(path),
        )

    def _note_approved_plan(self, state: AgentState, path: Path) -> None:
        if state.history and state.history[0].role == "system" and str(path) not in state.history[0].content:
            text = (
                f"{state.history[0].content}\n\nApproved plan: {path}. "
                "Follow it step by step; read it again when unsure."
            )
            state.history[0] = Message.system(text)

    def _folder(self, state: AgentState) -> Path:
        if self.folder is None:
            self.folder = plans_dir(state.workspace, state.session_id)
        return self.folder
