"""run_shell_command: bash in its own process group, killed after a stretch without output (not after a
fixed total time), output cut to a budget with the full text saved to a file, and Ctrl-C-safe."""

from __future__ import annotations

import logging
import os
import selectors
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.output_budget import cut_head_tail, new_output_path
from acode.tools.paths import display_path, resolve_path

log = logging.getLogger("acode.tools.shell")

MEMORY_HEAD_BYTES = 1 << 20  # output kept in memory: the first MiB ...
MEMORY_TAIL_BYTES = 4 << 20  # ... and the last 4 MiB; everything always goes to the spill file
EXIT_GRACE_SECONDS = 0.5  # after bash exits, how long to keep draining output held by its children
TERM_GRACE_SECONDS = 2.0


@dataclass
class CommandOutcome:
    output: str
    exit_code: int | None
    signal: str | None
    timed_out: bool
    pid: int
    total_bytes: int
    spill_path: Path


class _Capture:
    """Everything to a spill file; a head and a rolling tail in memory."""

    def __init__(self, spill_path: Path):
        self.spill_path = spill_path
        self._spill = open(spill_path, "wb")  # noqa: SIM115 - closed in finish()
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        self._spill.write(data)
        self.total += len(data)
        room = MEMORY_HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > MEMORY_TAIL_BYTES:
            del self.tail[: len(self.tail) - MEMORY_TAIL_BYTES]

    def finish(self) -> str:
        self._spill.close()
        dropped = self.total - len(self.head) - len(self.tail)
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if dropped:
            return f"{head}\n... [{dropped} bytes omitted] ...\n{tail}"
        return (bytes(self.head) + bytes(self.tail)).decode("utf-8", errors="replace")


def kill_group(proc: subprocess.Popen) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after a grace period."""
    for sig, wait in ((signal.SIGTERM, TERM_GRACE_SECONDS), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"ACODE": "1", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    return env


def run_command(command: str, cwd: Path, inactivity_timeout: float, spill_path: Path) -> CommandOutcome:
    proc = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=_shell_env(),
    )
    capture = _Capture(spill_path)
    fd = proc.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    last_output = time.monotonic()
    exited_at: float | None = None
    timed_out = False
    try:
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now - exited_at > EXIT_GRACE_SECONDS:
                break  # bash is gone; a child it left running still holds the pipe
            if now - last_output > inactivity_timeout:
                timed_out = True
                kill_group(proc)
                break
            if selector.select(timeout=0.1):
                data = os.read(fd, 65536)
                if not data:
                    break
                capture.add(data)
                last_output = time.monotonic()
        proc.wait()
    except BaseException:  # KeyboardInterrupt above all: never leave the group running
        kill_group(proc)
        raise
    finally:
        selector.close()
        proc.stdout.close()
        text = capture.finish()
    code = proc.returncode
    return CommandOutcome(
        output=text,
        exit_code=code if code is not None and code >= 0 else None,
        signal=signal.Signals(-code).name if code is not None and code < 0 else None,
        timed_out=timed_out,
        pid=proc.pid,
        total_bytes=capture.total,
        spill_path=spill_path,
    )


class ShellArgs(BaseModel):
    command: str = Field(description="The bash command to run.")
    description: str | None = Field(None, description="A short note on what the command does, for the user.")
    dir_path: str | None = Field(None, description="Folder to run in, relative to the workspace root.")
    is_background: bool = Field(
        False, description="Start it in the background (servers, watchers) and return its PID at once."
    )


class RunShellCommand(Tool):
    name = "run_shell_command"
    description = (
        "Run a bash command in the workspace and return its combined output, exit code and signal. "
        "Commands are stopped when they print nothing for a while; long output is shortened."
    )
    Args = ShellArgs
    kind = "execute"

    def run(self, args: ShellArgs, ctx: ToolContext) -> ToolResult:
        if not args.command.strip():
            raise ToolError("command is empty.")
        cwd = resolve_path(ctx, args.dir_path or ".", what="dir_path")
        if not cwd.is_dir():
            raise ToolError(f"dir_path '{args.dir_path}' is not a directory.")
        outputs = ctx.outputs_dir or Path(tempfile.gettempdir()) / "acode-outputs"
        spill = new_output_path(outputs, "shell-bg" if args.is_background else "shell")
        if args.is_background:
            return self._start_background(args.command, cwd, spill, ctx)
        outcome = run_command(args.command, cwd, ctx.shell_inactivity_timeout, spill)
        budget = ctx.output_budget_chars
        if outcome.total_bytes and len(outcome.output) > budget > 0:
            text = cut_head_tail(outcome.output, budget, saved_to=spill)
        else:
            text = outcome.output
            spill.unlink(missing_ok=True)
        lines = [f"$ {args.command}", f"(in {display_path(ctx, cwd)})", text.rstrip("\n") or "(no output)"]
        if outcome.timed_out:
            lines.append(
                f"[no output for {ctx.shell_inactivity_timeout:g}s: the command's process group was killed]"
            )
        if outcome.signal:
            lines.append(f"[killed by signal {outcome.signal}]")
        else:
            lines.append(f"[exit code: {outcome.exit_code}]")
        return ToolResult(output="\n".join(lines))

    def _start_background(self, command: str, cwd: Path, log_path: Path, ctx: ToolContext) -> ToolResult:
        with open(log_path, "wb") as log_file:
            proc = subprocess.Popen(
                ["bash", "-c", command],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=_shell_env(),
            )
        ctx.state.setdefault("background_processes", {})[proc.pid] = proc
        return ToolResult(
            output=(
                f"Started in the background: PID {proc.pid} (its own process group). "
                f"Its output goes to {log_path}; read it with read_file or `tail`, stop it with `kill -- -{proc.pid}`."
            ),
        )


def tools() -> list[Tool]:
    return [RunShellCommand()]
