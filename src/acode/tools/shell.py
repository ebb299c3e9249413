"""run_shell_command: bash in its own process group, killed after a stretch without output (not after a
fixed total time), output cut to a budget with the full text saved to a file (up to a size cap), and
Ctrl-C-safe. When the command ends, whatever it left running in its process group (``sleep 1000 &``) is
stopped too: long-lived processes are started with ``is_background``."""

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

from acode.child_signals import shell_argv
from acode.fsutil import open_private
from acode.tools.base import Tool, ToolContext, ToolError, ToolResult
from acode.tools.output_budget import cut_head_tail, new_output_path, redact_saved
from acode.tools.paths import display_path, resolve_path

log = logging.getLogger("acode.tools.shell")

MEMORY_HEAD_BYTES = 1 << 20  # output kept in memory: the first MiB ...
MEMORY_TAIL_BYTES = 4 << 20  # ... and the last 4 MiB; everything always goes to the spill file
EXIT_GRACE_SECONDS = 0.5  # after bash exits, how long to keep draining output held by its children
TERM_GRACE_SECONDS = 2.0
SPILL_MAX_BYTES = 32 << 20  # the spill file keeps the first 32 MiB - 4 MiB and the last 4 MiB


@dataclass
class CommandOutcome:
    output: str
    exit_code: int | None
    signal: str | None
    timed_out: bool
    pid: int
    total_bytes: int
    spill_path: Path
    stopped_leftovers: bool = False
    over_time: bool = False  # killed at the command's own time limit


class _Capture:
    """Everything to a spill file; a head and a rolling tail in memory."""

    def __init__(self, spill_path: Path, spill_max: int = SPILL_MAX_BYTES):
        self.spill_path = spill_path
        self._spill = open_private(spill_path, "wb")  # closed in finish(); unredacted until then
        self._spill_head = max(0, spill_max - MEMORY_TAIL_BYTES)  # written as it comes; the tail at the end
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data: bytes) -> None:
        room = self._spill_head - self.total
        if room > 0:
            self._spill.write(data[:room])
        self.total += len(data)
        room = MEMORY_HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        if len(self.tail) > MEMORY_TAIL_BYTES:
            del self.tail[: len(self.tail) - MEMORY_TAIL_BYTES]

    def finish(self) -> str:
        if self.total > self._spill_head:
            skipped = self.total - self._spill_head - len(self.tail)
            if skipped > 0:
                self._spill.write(
                    f"\n... [{skipped} bytes not saved: the file keeps the first and last part] ...\n"
                    .encode()
                )
                self._spill.write(bytes(self.tail))
            else:
                self._spill.write(bytes(self.tail)[-(self.total - self._spill_head) :])
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


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies waiting for a parent do not count)."""
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
            return True
    return False


def stop_leftovers(pgid: int) -> bool:
    """SIGTERM, then SIGKILL, what is left in the process group of a finished command; True if
    anything was left."""
    if not _group_alive(pgid):
        return False
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            return True
        deadline = time.monotonic() + TERM_GRACE_SECONDS
        while time.monotonic() < deadline:
            if not _group_alive(pgid):
                return True
            time.sleep(0.05)
    return True


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"ACODE": "1", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    return env


def shell_launch(command: str, cwd: Path, ctx: ToolContext | None = None) -> tuple[list[str], dict[str, str]]:
    """(argv, env) of ``command`` run by bash in ``cwd``: inside ``ctx.sandbox`` when there is one."""
    argv, env = shell_argv(command, shell="bash"), _shell_env()
    if ctx is not None and ctx.sandbox is not None:
        return ctx.sandbox.wrap(argv, env, cwd=cwd, workspace=ctx.workspace)
    return argv, env


def run_command(command: str, cwd: Path, inactivity_timeout: float, spill_path: Path,
                time_limit: float | None = None, ctx: ToolContext | None = None) -> CommandOutcome:
    argv, env = shell_launch(command, cwd, ctx)
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env=env,
    )
    capture = _Capture(spill_path)
    fd = proc.stdout.fileno()
    selector = selectors.DefaultSelector()
    selector.register(fd, selectors.EVENT_READ)
    last_output = started = time.monotonic()
    exited_at: float | None = None
    timed_out = over_time = False
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
            if exited_at is None and time_limit is not None and now - started > time_limit:
                over_time = True
                kill_group(proc)
                break
            if selector.select(timeout=0.1):
                data = os.read(fd, 65536)
                if not data:
                    break
                capture.add(data)
                last_output = time.monotonic()
        proc.wait()
        leftovers = stop_leftovers(proc.pid)  # `sleep 1000 &`: nothing outlives the command
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
        over_time=over_time,
        pid=proc.pid,
        total_bytes=capture.total,
        spill_path=spill_path,
        stopped_leftovers=leftovers,
    )


class ShellArgs(BaseModel):
    command: str = Field(description="The bash command to run.")
    description: str | None = Field(None, description="A short note on what the command does, for the user.")
    dir_path: str | None = Field(None, description="Folder to run in, relative to the workspace root.")
    is_background: bool = Field(
        False, description="Start it in the background (servers, watchers) and return its PID at once."
    )
    timeout_seconds: float | None = Field(
        None, gt=0, le=86400, description="Stop the command after this many seconds (one that may hang)."
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
        outcome = run_command(args.command, cwd, ctx.shell_inactivity_timeout, spill, args.timeout_seconds,
                              ctx)
        budget = ctx.output_budget_chars
        if outcome.total_bytes and len(outcome.output) > budget > 0:
            redact_saved(spill)  # it was written as the command printed
            text = cut_head_tail(outcome.output, budget, saved_to=spill)
        else:
            text = outcome.output
            spill.unlink(missing_ok=True)
        boxed = ctx.sandbox is not None and ctx.sandbox.active
        where = display_path(ctx, cwd) + (", sandboxed" if boxed else "")
        lines = [f"$ {args.command}", f"(in {where})", text.rstrip("\n") or "(no output)"]
        if outcome.timed_out:
            lines.append(
                f"[no output for {ctx.shell_inactivity_timeout:g}s: the command's process group was killed]"
            )
        if outcome.over_time:
            lines.append(
                f"[still running after {args.timeout_seconds:g}s: the command's process group was killed]"
            )
        if outcome.stopped_leftovers:
            lines.append(
                "[processes the command left running were stopped when it ended; start servers and "
                "watchers with is_background=true]"
            )
        why = ctx.sandbox.explain_failure(outcome.output) if ctx.sandbox and outcome.exit_code != 0 else None
        if why:
            lines.append(why)
        if outcome.signal:
            lines.append(f"[killed by signal {outcome.signal}]")
        else:
            lines.append(f"[exit code: {outcome.exit_code}]")
        return ToolResult(output="\n".join(lines))

    def _start_background(self, command: str, cwd: Path, log_path: Path, ctx: ToolContext) -> ToolResult:
        argv, env = shell_launch(command, cwd, ctx)
        with open_private(log_path, "wb") as log_file:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
        ctx.state.setdefault("background_processes", {})[proc.pid] = proc
        if ctx.sandbox is not None and ctx.sandbox.active:
            # each sandboxed command has its own processes and loopback: a later one cannot signal or reach it
            stop = ("It runs in a sandbox of its own: later commands cannot signal it or reach it over "
                    "localhost; start and use a server in one command instead")
        else:
            stop = f"stop it with `kill -- -{proc.pid}`"
        return ToolResult(
            output=(
                f"Started in the background: PID {proc.pid} (its own process group). "
                f"Its output goes to {log_path}; read it with read_file or `tail`; {stop}."
            ),
        )


def tools() -> list[Tool]:
    return [RunShellCommand()]
