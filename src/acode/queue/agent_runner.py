"""Run a queued task with its sub-agent: non-interactive, every file operation confined to the queue's
``workspace/`` plus the task's plan file, everything the agent does appended to the task's log."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.result import ModelStep, ToolStep
from acode.agent.subagents.definitions import AgentDefinition
from acode.fsutil import open_private
from acode.queue.model import TaskState
from acode.queue.store import QueueLayout
from acode.queue.worker import TaskOutcome, TaskRunner
from acode.tools.base import ToolContext, ToolResult

LOG_PREVIEW_CHARS = 2000


class TaskLogObserver(LoopObserver):
    """Appends each model answer and each tool call with its result to the task's log file."""

    def __init__(self, log_file: Path):
        self.log_file = log_file

    def _write(self, text: str) -> None:
        with open_private(self.log_file) as handle:
            handle.write(text.rstrip("\n") + "\n")

    def on_model_step(self, state: AgentState, step: ModelStep) -> None:
        line = f"[turn {step.turn}] model ({step.seconds:.1f}s)"
        if step.text.strip():
            line += f": {step.text.strip()[:LOG_PREVIEW_CHARS]}"
        for call in step.tool_calls:
            line += f" -> calls {call.get('name')}"
        if step.format_error:
            line += f" [invalid answer: {step.format_error}]"
        self._write(line)

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None:
        args = json.dumps(step.arguments, ensure_ascii=False)[:LOG_PREVIEW_CHARS]
        outcome = "ok" if step.ok else f"{step.decision}: {step.error}"
        self._write(
            f"[turn {step.turn}] tool {step.name} {args} -> {outcome}\n{step.output[:LOG_PREVIEW_CHARS]}"
        )


def task_context(task: TaskState, layout: QueueLayout, sandbox: Any = None) -> ToolContext:
    layout.workspace.mkdir(parents=True, exist_ok=True)
    return ToolContext(
        workspace=layout.workspace,
        outputs_dir=layout.logs / f"{task.task_id}_outputs",
        interactive=False,
        session_id=f"task-{task.task_id}",
        extra_writable=(Path(task.plan_file),),
        sandbox=sandbox,
    )


def make_task_runner(
    agents: dict[str, AgentDefinition],
    model_factory: Callable[[], Any],
    registry_factory: Callable[[], Any],
    *,
    rules: Any = None,
    loop_config: Any = None,
    sandbox: Any = None,
) -> TaskRunner:
    """A TaskRunner for the queue. The model is built on first use (once per worker process); the
    tasks' commands run in ``sandbox`` (acode.command_sandbox.CommandSandbox; None: as the user)."""
    from acode.agent.approval.policy import ApprovalPolicy
    from acode.agent.subagents.runner import SubagentRunner

    cache: dict[str, Any] = {}

    def run(task: TaskState, layout: QueueLayout, should_abort: Callable[[], bool]) -> TaskOutcome:
        definition = agents.get(task.agent)
        if definition is None:
            return TaskOutcome(
                False, error=f"unknown agent '{task.agent}' (known: {', '.join(sorted(agents))})"
            )
        if "model" not in cache:
            cache["model"] = model_factory()
        runner = SubagentRunner(
            cache["model"],
            registry_factory(),
            loop_config=loop_config,
            policy=ApprovalPolicy(rules),
            approval_mode="auto_edit",
            interactive=False,
            observers=[TaskLogObserver(Path(task.log_file))],
        )
        result = runner.run(
            definition,
            task.prompt,
            task_context(task, layout, sandbox),
            plan_file=task.plan_file,
            should_abort=should_abort,
        )
        with open_private(task.log_file) as handle:
            handle.write(f"[result] termination={result.termination} turns={result.turns}: {result.result}\n")
        if result.completed:
            return TaskOutcome(True, result=result.result)
        why = result.message or result.result or "no result"
        return TaskOutcome(False, result=result.result, error=f"{result.termination}: {why}")

    return run
