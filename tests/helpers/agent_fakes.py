"""Tiny real tools for loop tests (they touch a temporary workspace), and a loop builder."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from pydantic import BaseModel

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
from acode.config.agent import ToolRules
from acode.tools.base import Tool, ToolContext, ToolError, ToolRegistry, ToolResult


class PathArgs(BaseModel):
    file_path: str


class WriteArgs(BaseModel):
    file_path: str
    content: str


class ShellArgs(BaseModel):
    command: str


class SleepArgs(BaseModel):
    seconds: float = 0.2


class ReadTool(Tool):
    name = "read_file"
    description = "Read a file."
    Args = PathArgs
    kind = "read"

    def run(self, args, ctx):
        path = ctx.workspace / args.file_path
        if not path.is_file():
            raise ToolError(f"File not found: {args.file_path}")
        return ToolResult(output=path.read_text())


class WriteTool(Tool):
    name = "write_file"
    description = "Write a file."
    Args = WriteArgs
    kind = "edit"

    def run(self, args, ctx):
        path = ctx.workspace / args.file_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(args.content)
        return ToolResult(output=f"wrote {args.file_path}")


class ShellTool(Tool):
    name = "run_shell_command"
    description = "Run a command (records it; does not really run)."
    Args = ShellArgs
    kind = "execute"

    def run(self, args, ctx):
        ctx.state.setdefault("ran", []).append(args.command)
        return ToolResult(output=f"ran {args.command}")


class SlowReadTool(Tool):
    """Sleeps, recording which threads overlap, so tests can see parallel execution."""

    name = "slow_read"
    description = "Slow read."
    Args = SleepArgs
    kind = "read"

    def __init__(self):
        self.active = 0
        self.max_active = 0
        self._lock = threading.Lock()

    def run(self, args, ctx):
        with self._lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(args.seconds)
        with self._lock:
            self.active -= 1
        return ToolResult(output="slept")


class BrokenTool(Tool):
    name = "broken"
    description = "Always fails with a bug."
    Args = SleepArgs
    kind = "read"

    def run(self, args, ctx):
        raise RuntimeError("boom")


class InterruptingTool(Tool):
    """Behaves like the user pressing Ctrl-C while it runs."""

    name = "interrupting"
    description = "Raises KeyboardInterrupt."
    Args = SleepArgs
    kind = "execute"

    def run(self, args, ctx):
        raise KeyboardInterrupt


def registry(*extra: Tool) -> ToolRegistry:
    return ToolRegistry([ReadTool(), WriteTool(), ShellTool(), *extra])


def make_loop(
    model,
    workspace: Path,
    *extra_tools: Tool,
    rules: ToolRules | None = None,
    approver=None,
    middlewares=(),
    observers=(),
    **config,
) -> AgentLoop:
    ctx = ToolContext(workspace=workspace, outputs_dir=workspace / ".acode" / "outputs")
    return AgentLoop(
        model,
        registry(*extra_tools),
        ctx,
        config=LoopConfig(**config),
        middlewares=middlewares,
        policy=ApprovalPolicy(rules, approver=approver),
        observers=observers,
    )


def new_state(loop: AgentLoop, mode: str = "yolo", interactive: bool = False, session_id: str = "s1"):
    return loop.new_state(
        "You are a test agent.", session_id=session_id, approval_mode=mode, interactive=interactive
    )
