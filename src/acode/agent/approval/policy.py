"""Approval: may this tool call run? A separate step the loop takes *before* the middlewares'
``before_tool`` hooks (so hooks see only calls the user's mode and rules allow; a hook may still deny).

Order of precedence, first match wins:
1. ``agent.rules.deny_tools`` / ``deny_shell`` -> deny. Shell lines are read with the bash grammar
   (``acode.agent.approval.shell_rules``): a deny prefix matches any command anywhere in the line; a line that
   cannot be read, a redirection writing outside the workspace or into ``.git/``/``.acode/`` -> deny
   (except in yolo mode).
2. edit tools aimed at ``.git/`` or ``.acode/`` -> deny (except in yolo mode and the session's extra
   writable files such as plan files).
3. plan mode -> read-only tools only, plus edits of files inside ``ToolContext.extra_writable``
   (plan files); rules cannot widen plan mode.
4. read / interact / agent tools -> allow.
5. ``allow_tools`` / ``allow_shell`` (every command in the line must match; a line whose redirections
   write files also needs a mode that allows edits) and earlier "always" answers -> allow.
6. the mode: yolo allows everything; auto_edit allows edits and asks for shell; default asks for both.

"ask" becomes a question to the user through the ``approver`` callback when the session is
interactive, and a denial the model can read otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acode.agent.approval.shell_rules import ShellJudgement, judge_shell, remembered_programs
from acode.agent.loop.middleware import AgentState, ToolDecision
from acode.audience import ASK_INSTEAD, DO_NOT_RETRY
from acode.config.agent import ToolRules
from acode.llm.types import ToolCall
from acode.tools.base import Tool, ToolContext, ToolError
from acode.tools.globmatch import match_glob
from acode.tools.paths import protected_edit, resolve_path, workspace_root

SHELL_TOOL = "run_shell_command"
READ_ONLY_FILES = "read_only_files"  # ToolContext.state: the chat's /read-only files, folders/ and globs
MODES = ("default", "auto_edit", "yolo", "plan")

Answer = Literal["yes", "no", "always"]


@dataclass
class ApprovalRequest:
    """What the user is asked about."""

    call: ToolCall
    tool: Tool
    reason: str
    preview: str | None = None  # what the call would change (a diff for edits), see Tool.preview

    @property
    def summary(self) -> str:
        args = self.call.arguments
        if self.call.name == SHELL_TOOL:
            return f"run: {args.get('command', '')}"
        target = args.get("file_path") or args.get("dir_path") or ""
        return f"{self.call.name} {target}".strip()


Approver = Callable[[ApprovalRequest], Answer]

def non_interactive_denial(tool: Tool) -> ToolDecision:
    """The denial of a call that needs approval where nobody can answer, with the command that allows it."""
    if tool.kind == "execute":
        fix = "rerun with -y (--approval-mode yolo), or allow the command prefix in agent.rules.allow_shell"
    else:
        fix = (
            "rerun with --approval-mode auto_edit (edits) or -y (--approval-mode yolo: edits and shell), "
            f"or add {tool.name} to agent.rules.allow_tools"
        )
    reason = f"denied: approval needed in non-interactive mode; {fix}"
    return ToolDecision("deny", reason, model_note=DO_NOT_RETRY)


class ApprovalPolicy:
    def __init__(self, rules: ToolRules | None = None, *, approver: Approver | None = None):
        self.rules = rules or ToolRules()
        self.approver = approver
        self._always_tools: set[str] = set()
        self._always_shell: set[str] = set()

    # -- the decision -------------------------------------------------------------------------
    def decide(self, state: AgentState, call: ToolCall, tool: Tool, ctx: ToolContext) -> ToolDecision:
        mode = state.approval_mode
        if call.name in self.rules.deny_tools:
            return ToolDecision("deny", f"denied by agent.rules.deny_tools ({call.name})")
        shell = self._judge_shell(call, mode, ctx) if call.name == SHELL_TOOL else None
        if shell is not None and shell.denied:
            return ToolDecision("deny", shell.denied)
        if tool.kind == "edit" and _read_only(ctx, call.arguments.get("file_path")):
            return ToolDecision(
                "deny", "denied: this file is read-only in this chat (/read-only); /drop it to allow edits"
            )
        if tool.kind == "edit" and mode != "yolo":
            protected = protected_edit(ctx, call.arguments.get("file_path"))
            if protected:
                return ToolDecision("deny", protected, model_note=DO_NOT_RETRY)
        if mode == "plan":
            return self._plan_mode(call, tool, ctx)
        if tool.kind in ("read", "interact", "agent"):
            return ToolDecision("allow")
        if call.name in self.rules.allow_tools or call.name in self._always_tools:
            return ToolDecision("allow", "allowed by rule")
        if (
            shell is not None
            and shell.allowed_by_rules
            and (not shell.writes or mode in ("auto_edit", "yolo"))
        ):
            return ToolDecision("allow", "allowed by agent.rules.allow_shell")
        if mode == "yolo":
            return ToolDecision("allow")
        if mode == "auto_edit" and tool.kind == "edit":
            return ToolDecision("allow")
        if shell is not None and shell.writes:
            return ToolDecision(
                "ask", f"{mode} mode asks before commands that write files ({', '.join(shell.writes[:3])})"
            )
        return ToolDecision("ask", f"{mode} mode asks before {tool.kind} tools")

    def _judge_shell(self, call: ToolCall, mode: str, ctx: ToolContext) -> ShellJudgement:
        cwd = ctx.workspace
        dir_path = call.arguments.get("dir_path")
        if isinstance(dir_path, str) and dir_path.strip():
            try:
                cwd = resolve_path(ctx, dir_path, what="dir_path")
            except ToolError:
                pass  # the tool refuses it when it runs
        return judge_shell(
            str(call.arguments.get("command", "")),
            deny=list(self.rules.deny_shell),
            allow=[*self.rules.allow_shell, *sorted(self._always_shell)],
            mode=mode,
            workspace=ctx.workspace,
            cwd=cwd,
            extra_writable=tuple(ctx.extra_writable),
        )

    def _plan_mode(self, call: ToolCall, tool: Tool, ctx: ToolContext) -> ToolDecision:
        if tool.kind in ("read", "interact"):
            return ToolDecision("allow")
        if tool.kind == "edit" and _inside(call.arguments.get("file_path"), ctx):
            return ToolDecision("allow", "plan file")
        return ToolDecision(
            "deny",
            "denied: plan mode is read-only. Research and write the plan; "
            "changes are made after the plan is approved.",
        )

    # -- turning "ask" into an answer ---------------------------------------------------------
    def resolve(
        self,
        state: AgentState,
        call: ToolCall,
        tool: Tool,
        decision: ToolDecision,
        ctx: ToolContext | None = None,
    ) -> ToolDecision:
        """An "ask" becomes allow or deny: the approver answers when interactive, else it is denied.
        With ``ctx`` the question shows what the call would change."""
        if decision.action != "ask":
            return decision
        if not state.interactive or self.approver is None:
            return non_interactive_denial(tool)
        answer = self.approver(ApprovalRequest(call, tool, decision.reason, _preview(tool, call, ctx)))
        if answer == "always":
            self.remember(call)
            return ToolDecision("allow", "approved (always)", decision.rewritten_arguments)
        if answer == "yes":
            return ToolDecision("allow", "approved", decision.rewritten_arguments)
        return ToolDecision("deny", "denied by the user", model_note=ASK_INSTEAD)

    def remember(self, call: ToolCall) -> None:
        """ "Always" for shell remembers the command's program (``pytest -q`` -> ``pytest``)."""
        if call.name != SHELL_TOOL:
            self._always_tools.add(call.name)
            return
        self._always_shell.update(remembered_programs(str(call.arguments.get("command", ""))))


def _read_only(ctx: ToolContext, file_path: object) -> bool:
    patterns = ctx.state.get(READ_ONLY_FILES)
    if not patterns or not isinstance(file_path, str):
        return False
    try:
        rel = resolve_path(ctx, file_path).relative_to(workspace_root(ctx)).as_posix()
    except (ToolError, ValueError):
        return False
    return any(rel == p or rel.startswith(p.rstrip("/") + "/") or match_glob(p, rel) for p in patterns)


def _preview(tool: Tool, call: ToolCall, ctx: ToolContext | None) -> str | None:
    if ctx is None:
        return None
    try:
        return tool.preview(tool.Args.model_validate(call.arguments), ctx)
    except ValueError:  # arguments that do not validate: the call fails when it runs
        return None


def _inside(file_path: object, ctx: ToolContext) -> bool:
    if not isinstance(file_path, str) or not file_path or not ctx.extra_writable:
        return False
    target = Path(file_path)
    target = (target if target.is_absolute() else ctx.workspace / target).resolve()
    for allowed in ctx.extra_writable:
        allowed = allowed.resolve()
        if target == allowed or allowed in target.parents:
            return True
    return False
