"""``acode -p "..." --output-format stream-json``: the run as a stream of JSON lines on stdout (see
acode.cli.stream_events for the events), progress for people still on stderr."""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from acode.agent.loop.middleware import AgentState
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.result import AgentResult, ModelStep, ToolStep
from acode.cli.stream_events import (
    ErrorEvent,
    InitEvent,
    MessageEvent,
    ResultEvent,
    Stats,
    ToolResultEvent,
    ToolUseEvent,
    line,
)
from acode.errors import EXIT_OK, AcodeError
from acode.llm.types import ToolCall
from acode.tools.base import ToolResult

OUTPUT_FORMATS = ("text", "json", "stream-json")


def check_output_format(value: str | None, json_flag: bool) -> str:
    """``--output-format`` (``--json`` is an alias of ``json``); a usage error for anything else."""
    from acode.errors import UsageError

    if value is None:
        return "json" if json_flag else "text"
    if value not in OUTPUT_FORMATS:
        raise UsageError(
            "ACODE-AGENT-003",
            f"unknown output format '{value}'",
            hint=f"use one of: {', '.join(OUTPUT_FORMATS)}",
        )
    if json_flag and value != "json":
        raise UsageError(
            "ACODE-AGENT-003", f"--json and --output-format {value} disagree", hint="give only one of them"
        )
    return value


class StreamWriter:
    """Writes one event per line and flushes at once (a pipe would otherwise hold them back)."""

    def __init__(self, out: IO[str] | None = None):
        self.out = out or sys.stdout
        self._lock = threading.Lock()

    def emit(self, event: BaseModel) -> None:
        with self._lock:
            self.out.write(line(event) + "\n")
            self.out.flush()


class StreamJsonView(LoopObserver):
    def __init__(self, writer: StreamWriter):
        self.writer = writer
        self._streamed = False  # the current model call streamed text pieces
        self._pending = ""  # streamed text after the last newline: whole lines go out (redaction sees them)
        self._announced: set[str] = set()  # tool call ids with a tool_use event

    def _tool_use(self, call_id: str, name: str, arguments: dict) -> None:
        if call_id not in self._announced:
            self._announced.add(call_id)
            self.writer.emit(ToolUseEvent(tool_name=name, tool_id=call_id, parameters=arguments))

    def on_model_start(self, state: AgentState) -> None:
        self._streamed = False

    def on_text(self, chunk: str) -> None:
        if chunk:
            self._streamed = True
            lines, newline, self._pending = (self._pending + chunk).rpartition("\n")
            if newline:
                self.writer.emit(MessageEvent(role="assistant", content=lines + newline, delta=True))

    def on_model_step(self, state: AgentState, step: ModelStep) -> None:
        if self._pending:
            self.writer.emit(MessageEvent(role="assistant", content=self._pending, delta=True))
            self._pending = ""
        if step.format_error:
            self.writer.emit(
                ErrorEvent(severity="warning", message=f"invalid model answer: {step.format_error}")
            )
            return
        for call in step.tool_calls:
            self._tool_use(call["id"], call["name"], call["arguments"])
        if not step.tool_calls and step.text and not self._streamed:
            self.writer.emit(MessageEvent(role="assistant", content=step.text))

    def on_tool_start(self, state: AgentState, call: ToolCall) -> None:
        self._tool_use(call.id, call.name, call.arguments)  # calls a solver makes without a model step

    def on_tool_step(self, state: AgentState, step: ToolStep, result: ToolResult) -> None:
        self._tool_use(step.call_id, step.name, step.arguments)
        self.writer.emit(
            ToolResultEvent(
                tool_id=step.call_id,
                tool_name=step.name,
                status="success" if step.ok else "error",
                decision=step.decision,
                output=step.output,
                error=step.error,
                seconds=round(step.seconds, 3),
            )
        )


def result_event(result: AgentResult, exit_code: int) -> ResultEvent:
    tokens = result.tokens
    stats = Stats(
        turns=result.turns,
        tool_calls=len(result.tool_steps()),
        duration_seconds=round(result.seconds, 3),
        model_seconds=round(result.model_seconds, 3),
        tool_seconds=round(result.tool_seconds, 3),
        input_tokens=tokens.prompt_tokens,
        input_tokens_cached=tokens.prompt_tokens_reused,
        output_tokens=tokens.completion_tokens,
    )
    return ResultEvent(
        status="success" if result.ok else "error",
        session_id=result.session_id,
        answer=result.answer,
        stop_reason=result.stop_reason,
        message=result.message,
        exit_code=exit_code,
        stats=stats,
    )


def report_failure(output_format: str, exc: AcodeError, out: IO[str] | None = None) -> None:
    """A failure before or during a one-shot run, in the format asked for: stream-json gets an ``error``
    event then a ``result`` event, json one object with the error, so stdout is never empty."""
    if output_format == "stream-json":
        writer = StreamWriter(out)
        writer.emit(ErrorEvent(severity="error", message=exc.message, code=exc.code, hint=exc.hint))
        writer.emit(ResultEvent(status="error", session_id="", answer="", stop_reason="error",
                                message=exc.message, exit_code=exc.exit_code))
    elif output_format == "json":
        from acode.cli.common import print_json

        print_json({"session_id": "", "answer": "", "stop_reason": "error", "message": exc.message,
                    "exit_code": exc.exit_code, "error": {"code": exc.code, "message": exc.message,
                                                          "hint": exc.hint}})


def run_stream(
    settings: Any, root: Path, options: Any, prompt: str, *, verbose: bool = False, out: IO[str] | None = None
) -> int:
    """One-shot run printing stream-json on ``out`` (stdout); returns the exit code."""
    from acode import __version__
    from acode.agent.session.builder import build_session
    from acode.cli.agent_view import ConsoleView
    from acode.cli.common import err_console

    writer = StreamWriter(out)
    options.observers = [StreamJsonView(writer), ConsoleView(err_console, verbose=verbose)]
    session = build_session(settings, root, options)  # a failure: start_agent reports it (report_failure)
    from acode.cli.turn_hooks import attach_turn_observers

    attach_turn_observers(session, settings, err_console)
    writer.emit(
        InitEvent(
            session_id=session.id,
            model=str(getattr(session.model, "name", "") or settings.model.name),
            backend=settings.model.backend,
            approval_mode=session.state.approval_mode,
            cwd=str(root),
            version=__version__,
        )
    )
    writer.emit(MessageEvent(role="user", content=prompt))
    try:
        result = session.send(prompt)
    finally:
        session.close()
    code = result.exit_code
    if not result.ok:
        writer.emit(ErrorEvent(severity="error", message=f"{result.stop_reason}: {result.message}".strip()))
    writer.emit(result_event(result, code))
    if code != EXIT_OK:
        err_console.print(
            f"session {result.session_id}: resume with acode -r {result.session_id}", highlight=False
        )
    return code
