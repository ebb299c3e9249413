"""Executor: each plan step through the agent loop and the tools (approval mode from
``pipeline.approval_mode``, auto_edit by default). After a failed verification it runs one fix step
with the failure output. Each step result records status, output, files changed and duration."""

from __future__ import annotations

import time

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
from acode.agent.loop.middleware import AgentState, Middleware
from acode.agent.loop.result import AgentResult
from acode.command_sandbox import command_sandbox
from acode.llm.types import ToolCall
from acode.pipeline import gitops
from acode.pipeline.models import StepResult
from acode.pipeline.planner import mentioned_files
from acode.pipeline.records import write_record_json
from acode.pipeline.stages import RunContext, Stage, StageResult
from acode.pipeline.step_writer import StepWriter, targets_and_context
from acode.prompts import render
from acode.tools.base import ToolContext, ToolRegistry, ToolResult

_STATUS = {"answer": "done", "timeout": "timeout", "interrupted": "interrupted"}


class ExecutorStage(Stage):
    name = "execute"

    def execute(self, ctx: RunContext) -> StageResult:
        state = ctx.state
        plan = state.plan
        assert plan is not None, "the executor runs after the planner"
        attempt = state.verify_attempt
        if attempt > 0 and state.verifications and not state.verifications[-1].passed:
            failure = state.verifications[-1].failure_output()
            results = [self._run_step(ctx, 0, "fix the failed verification", failure=failure)]
        else:
            results = []
            finished = {r.index for r in state.step_results if r.attempt == attempt and r.status == "done"}
            for index, step in enumerate(plan.steps, 1):
                if index in finished:  # resumed run: this step was completed before the interruption
                    continue
                results.append(self._run_step(ctx, index, step.description))
        failed = [r for r in results if r.status != "done"]
        if failed:
            return StageResult("failed", f"{len(failed)} of {len(results)} step(s) did not finish")
        return StageResult("ok", f"{len(results)} step(s) done")

    def _run_step(self, ctx: RunContext, index: int, description: str, *, failure: str = "") -> StepResult:
        state = ctx.state
        total = len(state.plan.steps) if state.plan else 0
        ctx.events.emit("step_start", index=index, total=total, description=description,
                        attempt=state.verify_attempt)
        before = gitops.fingerprint(ctx.root, state.start_commit)
        started = time.monotonic()
        done = [r for r in state.step_results if r.status == "done"]
        values = {"task": state.task, "plan": state.plan, "current": index, "failure": failure,
                  "attempt": state.verify_attempt, "done": done}
        prompt = render("acode.pipeline", "executor_step.j2", **values,
                        files=mentioned_files(ctx.root, f"{description}\n{failure}"))
        writer = None
        if ctx.settings.pipeline.whole_file_steps:
            paths, context = targets_and_context(f"{description}\n{failure}", state.task, ctx.root)
            # the writer shows the files itself: its copy of the step leaves them out
            request = render("acode.pipeline", "executor_step.j2", **values, files=[])
            writer = StepWriter(paths, context, request) if paths else None
        agent = run_agent(ctx, prompt, f"{state.session_id}-s{index}a{state.verify_attempt}", writer=writer)
        after = gitops.fingerprint(ctx.root, state.start_commit)
        result = StepResult(
            index=index,
            description=description,
            status=_STATUS.get(agent.stop_reason, "failed"),  # type: ignore[arg-type]
            output=agent.answer or agent.message,
            stop_reason=agent.stop_reason,
            files_changed=gitops.files_changed_between(before, after),
            duration_s=round(time.monotonic() - started, 3),
            attempt=state.verify_attempt,
        )
        write_record_json(
            ctx.run_dir / f"step_{index}_attempt_{state.verify_attempt}.json",
            {"prompt": prompt, "result": result.model_dump(), "agent": agent.model_dump(mode="json")},
        )
        state.step_results.append(result)
        ctx.events.emit("step_result", **result.model_dump())
        if result.status == "timeout":
            ctx.events.emit("timeout", stage="execute", step=index, message=agent.message)
        ctx.save_state()  # a resumed run skips the steps already done
        if agent.stop_reason == "interrupted":
            raise KeyboardInterrupt
        return result


class InsistOnEdits(Middleware):
    """Small models often claim a step is done without touching a file. The first such answer gets a
    nudge back to work; a second one is accepted (the verifier and the reviewer judge the result)."""

    name = "insist_on_edits"

    def __init__(self, registry: ToolRegistry, nudges: int = 1):
        self.edit_tools = {t.name for t in registry if t.kind == "edit"}
        self.nudges_left = nudges
        self.edited = False

    def after_tool(self, state: AgentState, call: ToolCall, result: ToolResult) -> None:
        self.edited = self.edited or (call.name in self.edit_tools and result.ok)

    def on_final_answer(self, state: AgentState, text: str) -> str | None:
        if self.edited or self.nudges_left <= 0 or not self.edit_tools:
            return None
        self.nudges_left -= 1
        return render("acode.pipeline", "executor_nudge.j2")


def executor_tools(ctx: RunContext) -> ToolRegistry:
    """``pipeline.executor_tools``, minus what could never run: no questions to the user, and no shell
    when the approval mode would deny it anyway (nobody is asked inside a run)."""
    mode = ctx.settings.pipeline.approval_mode
    rules = ctx.settings.agent.rules
    drop = {"ask_user"}
    if mode in ("default", "auto_edit") and not rules.allow_shell:
        drop.add("run_shell_command")
    if mode == "default" and not rules.allow_tools:
        drop.update(t.name for t in ctx.tools if not t.read_only)  # nothing could be edited
    return ctx.tools.subset(n for n in ctx.settings.pipeline.executor_tools if n not in drop)


def run_agent(
    ctx: RunContext, prompt: str, session_id: str, *, writer: StepWriter | None = None
) -> AgentResult:
    """The step through the agent loop; with a ``writer`` the loop first asks for the step's files whole
    in one call, and the tool loop only takes over when that fails."""
    settings = ctx.settings
    options = settings.pipeline
    config = LoopConfig.from_settings(settings)
    config.max_turns = options.agent_max_turns
    config.max_seconds = options.timeouts.executor
    tool_ctx = ToolContext.from_settings(
        ctx.root, settings.agent, outputs_dir=ctx.run_dir / "outputs", session_id=session_id,
        sandbox=command_sandbox(settings.sandbox),
    )
    tools = executor_tools(ctx)
    loop = AgentLoop(
        ctx.model,
        tools,
        tool_ctx,
        config=config,
        policy=ApprovalPolicy(settings.agent.rules),
        middlewares=[InsistOnEdits(tools)],
        solver=writer,
    )
    system = render("acode.pipeline", "executor_system.j2", workspace=str(ctx.root))
    state = loop.new_state(
        system, session_id=session_id, approval_mode=options.approval_mode, interactive=False
    )
    return loop.run(state, prompt)
