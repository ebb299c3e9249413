"""One running agent session: its loop and state, the store that records it, and the verbs the CLI uses
(send a prompt, switch the approval mode, enter plan mode, compress, restore edits, watch). It is put
together by ``acode.agent.session.builder.build_session``; the CLI (one-shot and chat) is a thin shell
around it.

    session = build_session(settings, project_root, SessionOptions(approval_mode="yolo"))
    result = session.send("create hello.py that prints hello, then run it")
    session.close(result.stop_reason)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acode.agent.approval.policy import MODES, READ_ONLY_FILES, Approver, ToolDecision
from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
from acode.agent.loop.middleware import Middleware
from acode.agent.loop.observer import LoopObserver
from acode.agent.loop.open_calls import close_open_tool_calls
from acode.agent.loop.result import AgentResult, ToolStep
from acode.agent.loop.tool_runner import ToolRunner
from acode.agent.middlewares.checkpoints import Checkpoints, RestoredEdit
from acode.agent.middlewares.compression import Compression, CompressionReport
from acode.agent.middlewares.hooks import HooksMiddleware
from acode.agent.middlewares.loop_detection import LoopDetection
from acode.agent.middlewares.next_speaker import NextSpeakerCheck
from acode.agent.middlewares.plan_mode import PlanDecision, PlanMode
from acode.agent.middlewares.routing import RoutingMiddleware
from acode.agent.middlewares.validation_nudge import ValidationNudge
from acode.agent.session.context_files import CONTEXT_FILE_NAMES, find_context_files
from acode.agent.session.recorder import SessionRecorder
from acode.agent.session.system_prompt import build_system_prompt
from acode.audience import EDITS_UNDONE_NOTE, RESTORED_ACK
from acode.config.settings import Settings
from acode.errors import UsageError
from acode.extensions.manifest import Extension
from acode.llm.protocol import ChatModel
from acode.llm.types import Message, ToolCall
from acode.store.sessions import SessionStore
from acode.tools.base import Tool, ToolRegistry, ToolResult

if TYPE_CHECKING:
    from acode.agent.session.added_tools import AddedTools
    from acode.command_sandbox import CommandSandbox

INTERRUPTED = json.dumps({"error": "interrupted: the session ended before this call finished"})


class SessionUI(Protocol):
    """What the middlewares ask of an interactive front end."""

    def approve_plan(self, path: Path, text: str) -> PlanDecision: ...

    def notify(self, text: str) -> None: ...


@dataclass
class SessionOptions:
    approval_mode: str | None = None  # None: settings.agent.approval_mode
    interactive: bool = False
    resume: str | None = None  # "latest" or a session id (prefix)
    approver: Approver | None = None
    ask_user: Callable[[list[str]], list[str]] | None = None
    observers: Sequence[LoopObserver] = ()
    no_loop_detection: bool = False
    approve_plan: bool = False
    ui: SessionUI | None = None  # None when non-interactive
    extensions: Sequence[Extension] | None = None  # the enabled extensions; None: every installed one
    extra_sections: Sequence[str] = ()  # more system prompt text (an approved plan, ...)
    context_file_names: Sequence[str] = CONTEXT_FILE_NAMES


@dataclass
class SessionMiddlewares:
    """The session's middlewares; ``in_order`` gives the order their hooks run, and order matters. Routing
    first (it only picks the model as a prompt arrives), then plan mode (it denies before hooks run and
    rewrites exit_plan_mode's result), compression before the nudges, hooks after them (they see the
    final history), checkpoints late (a snapshot only for an edit nobody refused)."""

    plan_mode: PlanMode
    routing: RoutingMiddleware | None = None
    compression: Compression | None = None
    loop_detection: LoopDetection | None = None
    hooks: HooksMiddleware | None = None
    next_speaker: NextSpeakerCheck | None = None
    checkpoints: Checkpoints | None = None
    validation_nudge: ValidationNudge | None = None

    def in_order(self) -> list[Middleware]:
        ordered = (self.routing, self.plan_mode, self.compression, self.loop_detection, self.hooks,
                   self.next_speaker, self.checkpoints, self.validation_nudge)
        return [m for m in ordered if m is not None]


def check_mode(mode: str) -> str:
    if mode not in MODES:
        raise UsageError(
            "ACODE-AGENT-001", f"unknown approval mode '{mode}'", hint=f"use one of: {', '.join(MODES)}"
        )
    return mode


class AgentSession:
    def __init__(
        self,
        *,
        settings: Settings,
        workspace: Path,
        loop: AgentLoop,
        store: SessionStore,
        options: SessionOptions,
        session_id: str,
        middlewares: SessionMiddlewares,
        extensions: Sequence[Extension] = (),
        added_tools: AddedTools | None = None,
        history: list[Message] | None = None,
    ):
        self.settings = settings
        self.workspace = workspace
        self.loop = loop
        self.store = store
        self.options = options
        self.middlewares = middlewares
        self.extensions = list(extensions)
        self.added_tools = added_tools  # MCP servers, reviewer, sub-agents; closed with the session
        mode = options.approval_mode or settings.agent.approval_mode
        self.state = loop.new_state(
            self.system_prompt(mode),
            session_id=session_id,
            approval_mode=mode,
            interactive=options.interactive,
            history=history,
        )
        self._attach_recorder(history)
        loop.ctx.session_id = session_id
        self.loop.start(self.state)

    def system_prompt(self, mode: str) -> str:
        from acode.extensions.loader import extensions_context

        return build_system_prompt(
            workspace=self.workspace,
            tool_names=self.loop.registry.names(),
            approval_mode=mode,
            context_files=find_context_files(self.workspace, names=self.options.context_file_names),
            interactive=self.options.interactive,
            extra_sections=[extensions_context(self.extensions), *self.options.extra_sections],
        )

    def _attach_recorder(self, loaded: list[Message] | None) -> None:
        history = self.state.history
        self.recorder = SessionRecorder(self.store, self.state.session_id, recorded=history if loaded else [])
        if loaded:
            close_open_tool_calls(history, INTERRUPTED)  # a kill mid-tool left calls without results
            fresh = self.system_prompt(self.state.approval_mode)
            if history and history[0].role == "system" and history[0].content != fresh:
                history[0] = Message.system(fresh)
        self.add_observer(self.recorder, first=True)
        self.recorder.on_history(self.state)

    # -- using ---------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.state.session_id

    # -- the loop's parts the CLI shows or hands on ------------------------------------------------
    @property
    def model(self) -> ChatModel:
        return self.loop.model

    @property
    def tools(self) -> ToolRegistry:
        return self.loop.registry

    @property
    def loop_config(self) -> LoopConfig:
        return self.loop.config

    @property
    def sandbox(self) -> CommandSandbox | None:
        """Where the model's commands run; None: as the user."""
        return self.loop.ctx.sandbox

    def tool_decision(self, tool: Tool) -> ToolDecision:
        """What the approval policy would decide now for a call of ``tool``."""
        call = ToolCall(name=tool.name, arguments={})
        return self.loop.policy.decide(self.state, call, tool, self.loop.ctx)

    def guard_read_only(self, paths: list[str]) -> None:
        """The files, folders/ and globs the approval policy keeps read-only from the next prompt on."""
        self.loop.ctx.state[READ_ONLY_FILES] = list(paths)

    def send(self, prompt: str | None, *, shown: str | None = None) -> AgentResult:
        """``shown``: what a person sees as their words when ``prompt`` is not what they typed."""
        return self.loop.send(self.state, prompt, shown=shown)

    def add_observer(self, observer: LoopObserver, *, first: bool = False) -> None:
        """Watch the loop from now on (``first``: before the others, as the recorder does)."""
        if first:
            self.loop.observers.items.insert(0, observer)
        else:
            self.loop.observers.items.append(observer)

    def observer_of(self, kind: type[LoopObserver]) -> LoopObserver | None:
        return next((o for o in self.loop.observers.items if isinstance(o, kind)), None)

    def set_mode(self, mode: str) -> None:
        self.state.approval_mode = check_mode(mode)
        self.state.history[0] = Message.system(self.system_prompt(mode))
        self.recorder.on_history(self.state)
        self.store.update(self.id, approval_mode=mode)

    def enter_plan_mode(self) -> None:
        """Read-only research and a plan for approval; ``leave_plan_mode`` goes back to the mode before."""
        if self.state.approval_mode == "plan":
            return
        previous = self.state.approval_mode
        self.set_mode("plan")
        self.middlewares.plan_mode.previous_mode = previous
        self.middlewares.plan_mode.enter(self.state)

    def leave_plan_mode(self) -> None:
        if self.state.approval_mode == "plan":
            self.set_mode(self.middlewares.plan_mode.previous_mode)

    def compress_now(self) -> CompressionReport | None:
        """Summarise the older history into a state snapshot now; None when compression is turned off."""
        if self.middlewares.compression is None:
            return None
        report = self.middlewares.compression.compress(self.state, force=True)
        self.loop.observers.on_history(self.state)
        return report

    def restore(self, count: int = 1, *, typed: str = "/restore") -> list[RestoredEdit] | None:
        """Undo the agent's last ``count`` file edits and tell the model; None when checkpoints are off."""
        if self.middlewares.checkpoints is None:
            return None
        undone = self.middlewares.checkpoints.restore(count)
        files = [
            path for edit in undone for path in [*edit.restored, *(f"{p} (removed)" for p in edit.removed)]
        ]
        self.add_note(
            f"{EDITS_UNDONE_NOTE} {len(undone)} edit(s); these files are back to their earlier content: "
            f"{', '.join(files)}.",
            RESTORED_ACK,
            typed=typed,
        )
        return undone

    def run_user_tool(self, name: str, arguments: dict[str, Any]) -> tuple[ToolStep, ToolResult] | None:
        """A tool call the user makes (``!command``): the same validation, approval rules, approval mode
        and hooks as the model's calls, outside the conversation; None when the session has no such tool."""
        loop = self.loop
        if name not in loop.registry:
            return None
        finished: list[tuple[ToolStep, ToolResult]] = []
        # the user typed it: it runs as they do, outside the sandbox of the model's commands
        ctx = replace(loop.ctx, sandbox=None)
        runner = ToolRunner(loop.registry, ctx, loop.policy, loop.middlewares, workers=1)
        runner.execute(self.state, [ToolCall(name=name, arguments=arguments)],
                       lambda prepared, step, result: finished.append((step, result)))
        return finished[0]

    def add_note(self, user_text: str, acknowledgement: str, *, typed: str) -> None:
        """Something the user did outside the loop (a restore, a shell command), for the model to know;
        ``typed``: what they typed for it (``!git log``), the words a person sees as theirs."""
        self.state.history.append(Message.user(user_text, shown=typed))
        self.state.history.append(Message.assistant(acknowledgement))
        self.loop.observers.on_history(self.state)

    def close(self, reason: str = "closed") -> None:
        try:
            self.loop.end(self.state, reason)
        finally:
            self.store.close()
            if self.added_tools is not None:
                self.added_tools.close()  # stops MCP servers

    def restart(self, resume: str | None = None) -> AgentSession:
        """A fresh session (``/clear``) or another stored one (``/resume``) with the same parts."""
        self.loop.end(self.state, "switched")
        if resume:
            info = self.store.resolve(resume)
            session_id, history = info.id, self.store.load_messages(info.id)
        else:
            session_id = self.store.create(
                self.workspace,
                model=getattr(self.loop.model, "name", ""),
                approval_mode=self.state.approval_mode,
            )
            history = None
        self.loop.observers.items.remove(self.recorder)
        self.loop.ctx.state.clear()
        options = replace(self.options, approval_mode=self.state.approval_mode)
        return AgentSession(
            settings=self.settings,
            workspace=self.workspace,
            loop=self.loop,
            store=self.store,
            options=options,
            session_id=session_id,
            middlewares=self.middlewares,
            extensions=self.extensions,
            added_tools=self.added_tools,
            history=history,
        )
