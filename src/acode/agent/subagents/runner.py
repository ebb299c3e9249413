"""Sub-agents: the same ReAct loop with a restricted tool registry, the agent's own system prompt, and a
``complete_task`` tool that ends it. At max turns or timeout the agent gets one grace turn (with only
``complete_task`` available) to hand in what it has. ``invoke_agent`` lets the main agent delegate.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
from acode.agent.loop.middleware import AgentState, Middleware
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.stops import AgentStop
from acode.agent.subagents.definitions import EDIT_TOOL_NAMES, AgentDefinition
from acode.errors import ModelError
from acode.fsutil import atomic_write_text
from acode.llm.protocol import ChatModel
from acode.llm.structured import complete_json
from acode.llm.types import Message, ToolCall
from acode.prompts import render
from acode.tools.base import Tool, ToolContext, ToolError, ToolRegistry, ToolResult

log = logging.getLogger("acode.agent")

COMPLETE_TASK = "complete_task"
UPDATE_PLAN = "update_plan"
INVOKE_AGENT = "invoke_agent"
GRACE_SECONDS = 120.0
FINISH_HINT = "If this completes the task, call complete_task now; otherwise continue with the next step."
Termination = Literal["goal", "timeout", "max_turns", "error", "aborted", "no_complete_task"]


class RelevantLocation(BaseModel):
    file: str = Field(description="Path of the file, relative to the workspace.")
    reason: str = Field(description="Why this file matters for the question.")
    key_symbols: list[str] = Field(
        default_factory=list, description="Functions, classes or names that matter."
    )


class InvestigationReport(BaseModel):
    """What codebase_investigator hands in through complete_task."""

    summary: str = Field(description="What you found, in a few sentences.")
    exploration_trace: list[str] = Field(default_factory=list, description="The steps you took.")
    relevant_locations: list[RelevantLocation] = Field(default_factory=list)


class TextResult(BaseModel):
    result: str = Field(
        description="Your final result: what you did or found (for coders: the path created)."
    )


OUTPUT_MODELS: dict[str, type[BaseModel]] = {"text": TextResult, "investigation": InvestigationReport}


class CompleteTask(Tool):
    """Ends the sub-agent: the arguments are its result (validated against the agent's output model)."""

    name = COMPLETE_TASK
    kind = "interact"
    description = "Finish the task and hand in the result. Call this exactly once, when you are done."
    Args = TextResult

    def __init__(self, output: type[BaseModel] = TextResult):
        self.Args = output  # type: ignore[misc]

    def run(self, args: BaseModel, ctx: ToolContext) -> ToolResult:
        ctx.state[COMPLETE_TASK] = args.model_dump()
        return ToolResult(output="Task complete.")


class UpdatePlanArgs(BaseModel):
    content: str = Field(description="The whole plan, in Markdown: a few numbered steps.")


class UpdatePlan(Tool):
    """Writes the task's plan file, so the agent never has to spell the file's path."""

    name = UPDATE_PLAN
    kind = "edit"
    description = "Write your plan (the complete new content of your plan file)."
    Args = UpdatePlanArgs

    def __init__(self, plan_file: Path, title: str):
        self.plan_file = plan_file
        self.title = title

    def run(self, args: UpdatePlanArgs, ctx: ToolContext) -> ToolResult:
        body = args.content.strip()
        text = body if body.startswith("# ") else f"{self.title}\n\n{body}"
        atomic_write_text(self.plan_file, text.rstrip() + "\n")
        return ToolResult(output="Plan saved.")


class SubagentResult(BaseModel):
    agent: str
    termination: Termination
    result: str = ""
    report: dict[str, Any] | None = None  # structured output (codebase_investigator)
    message: str = ""  # why it ended, for people
    turns: int = 0
    seconds: float = 0.0
    grace_turn_used: bool = False

    @property
    def completed(self) -> bool:
        """The agent handed in a result through complete_task (in time, or in its grace turn)."""
        return self.report is not None

    def for_model(self) -> dict[str, Any]:
        data: dict[str, Any] = {"agent": self.agent, "termination": self.termination, "result": self.result}
        if self.message:
            data["message"] = self.message
        return data


class _SubagentControl(Middleware):
    """Stops the loop when complete_task succeeds or the task is cancelled; nudges a plain answer once."""

    name = "subagent_control"

    def __init__(self, should_abort: Callable[[], bool] | None, nudges: int = 1):
        self.should_abort = should_abort or (lambda: False)
        self.nudges_left = nudges

    def before_model(self, state: AgentState) -> None:
        if self.should_abort():
            raise AgentStop("the task was cancelled", reason="aborted")

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> ToolResult | None:
        if call.name == COMPLETE_TASK and result.ok:
            raise AgentStop("complete_task called", reason="goal")
        if call.name in EDIT_TOOL_NAMES and result.ok and result.data is None:
            # small models tend to rewrite the same file again; remind them how the task ends
            return result.model_copy(update={"output": f"{result.output}\n{FINISH_HINT}"})
        return None

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        if self.nudges_left > 0:
            self.nudges_left -= 1
            return render("acode.agent", "subagent_nudge.j2")
        raise AgentStop(
            "the agent stopped without calling complete_task", partial=text, reason="no_complete_task"
        )


def restricted_registry(base: ToolRegistry, definition: AgentDefinition) -> ToolRegistry:
    """The agent's allowed tools (never invoke_agent), read-only ones only for investigators, plus
    complete_task with the agent's output model."""
    names = definition.tools if definition.tools is not None else base.names()
    missing = [n for n in names if n not in base]
    if missing:
        log.debug("agent %s: tools not available here: %s", definition.name, ", ".join(missing))
    tools = [base.get(n) for n in names if n in base and n not in (INVOKE_AGENT, COMPLETE_TASK)]
    if definition.output == "investigation":
        tools = [t for t in tools if t is not None and t.read_only]
    registry = ToolRegistry(t for t in tools if t is not None)
    registry.register(CompleteTask(OUTPUT_MODELS[definition.output]))
    return registry


def _termination(stop_reason: str) -> Termination:
    if stop_reason in ("goal", "timeout", "max_turns", "no_complete_task"):
        return stop_reason  # type: ignore[return-value]
    if stop_reason in ("aborted", "interrupted"):
        return "aborted"
    return "error"


class SubagentRunner:
    def __init__(
        self,
        model: ChatModel,
        base_registry: ToolRegistry,
        *,
        loop_config: LoopConfig | None = None,
        policy: ApprovalPolicy | None = None,
        approval_mode: str = "auto_edit",
        interactive: bool = False,
        observers: Sequence[LoopObserver] = (),
        model_for: Callable[[str], ChatModel] | None = None,
    ):
        self.model = model
        self.base_registry = base_registry
        self.loop_config = loop_config or LoopConfig()
        self.policy = policy or ApprovalPolicy()
        self.approval_mode = approval_mode
        self.interactive = interactive
        self.observers = list(observers)
        self.model_for = model_for

    def run(
        self,
        definition: AgentDefinition,
        prompt: str,
        ctx: ToolContext,
        *,
        plan_file: str | None = None,
        should_abort: Callable[[], bool] | None = None,
        context: str = "",
    ) -> SubagentResult:
        started = time.monotonic()
        registry = restricted_registry(self.base_registry, definition)
        if plan_file and any(not t.read_only for t in registry if t.name != COMPLETE_TASK):
            first_line = (
                Path(plan_file).read_text(encoding="utf-8").splitlines()[:1]
                if Path(plan_file).is_file()
                else []
            )
            registry.register(UpdatePlan(Path(plan_file), first_line[0] if first_line else "# Plan"))
        model = self.model_for(definition.model) if definition.model and self.model_for else self.model
        config = dataclasses.replace(
            self.loop_config,
            max_turns=definition.max_turns,
            max_seconds=definition.timeout_mins * 60,
            temperature=definition.temperature,
        )
        system = render(
            "acode.agent",
            "subagent_system.j2",
            persona=definition.system_prompt,
            name=definition.name,
            plan_file=bool(plan_file),
            tools=registry.names(),
            context=context,
        )
        ctx.state.pop(COMPLETE_TASK, None)
        control = _SubagentControl(should_abort)
        loop = AgentLoop(
            model,
            registry,
            ctx,
            config=config,
            middlewares=[control],
            policy=self.policy,
            observers=self.observers,
        )
        state = loop.new_state(
            system,
            session_id=f"sub-{definition.name}-{uuid.uuid4().hex[:8]}",
            approval_mode=self.approval_mode,
            interactive=self.interactive,
        )
        loop.start(state)
        outcome = loop.send(state, prompt)
        termination = _termination(outcome.stop_reason)
        turns, message, grace = outcome.turns, outcome.message, False
        if termination in ("max_turns", "timeout") and COMPLETE_TASK not in ctx.state:
            grace = True
            turns += self._grace_turn(model, definition, ctx, state, termination)
        loop.end(state, termination)
        report = ctx.state.get(COMPLETE_TASK)
        if termination == "goal":
            message = ""
        result_text = _result_text(report) if report is not None else outcome.answer
        return SubagentResult(
            agent=definition.name,
            termination=termination,
            result=result_text,
            report=report,
            message=message,
            turns=turns,
            seconds=time.monotonic() - started,
            grace_turn_used=grace,
        )

    def _grace_turn(
        self, model: ChatModel, definition: AgentDefinition, ctx: ToolContext, state: AgentState, limit: str
    ) -> int:
        """One last answer, decoded straight into the agent's result schema (no tool choice to get wrong)."""
        limit_name = "turn" if limit == "max_turns" else "time"
        messages = [
            *state.history,
            Message.user(render("acode.agent", "subagent_grace.j2", limit=limit_name)),
        ]
        try:
            report = complete_json(
                model,
                messages,
                OUTPUT_MODELS[definition.output],
                max_tokens=self.loop_config.max_tokens,
                timeout=GRACE_SECONDS,
            )
        except ModelError as exc:
            log.info("grace turn of %s gave no result: %s", definition.name, exc)
            return 1
        ctx.state[COMPLETE_TASK] = report.model_dump()
        return 1


def _result_text(report: dict[str, Any]) -> str:
    if set(report) == {"result"}:
        return str(report["result"])
    return json.dumps(report, ensure_ascii=False)


class InvokeAgentArgs(BaseModel):
    agent_name: str = Field(description="Name of the agent to run (see the list in this tool's description).")
    prompt: str = Field(
        description="The complete task for the agent: it sees nothing else of this conversation."
    )


class InvokeAgent(Tool):
    """Delegate a task to a sub-agent; it returns the agent's result and why it ended."""

    name = INVOKE_AGENT
    kind = "agent"
    description = "Delegate a self-contained task to a specialised sub-agent."
    Args = InvokeAgentArgs

    def __init__(self, runner: SubagentRunner, agents: dict[str, AgentDefinition]):
        self.runner = runner
        self.agents = agents
        listing = "; ".join(f"{a.name}: {a.description}" for a in agents.values())
        self.description = f"Delegate a self-contained task to a specialised sub-agent. Agents: {listing}"  # type: ignore[misc]

    def run(self, args: InvokeAgentArgs, ctx: ToolContext) -> ToolResult:
        definition = self.agents.get(args.agent_name)
        if definition is None:
            raise ToolError(
                f"Unknown agent '{args.agent_name}'. Known agents: {', '.join(sorted(self.agents))}"
            )
        # the sub-agent's edits count as this session's changes (the reviewer tool reads them)
        sub_ctx = dataclasses.replace(ctx, state={"files_changed": ctx.state.setdefault("files_changed", [])})
        result = self.runner.run(definition, args.prompt, sub_ctx)
        data = result.for_model()
        if result.report is not None and definition.output != "text":
            data["result"] = result.report  # the structured report itself, not its JSON text
        if not result.completed:
            return ToolResult(
                error=f"agent {definition.name} ended without a result ({result.termination}): "
                f"{result.message or result.result}"
            )
        return ToolResult(data=data, display=f"{definition.name}: {result.termination}")
