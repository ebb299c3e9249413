"""One agent session built from settings: model, tools, tool context, approval policy, middlewares,
system prompt and the store that records it. The CLI (one-shot and chat) is a thin shell around this.

    session = AgentSession.open(settings, project_root, SessionOptions(approval_mode="yolo"))
    result = session.send("create hello.py that prints hello, then run it")
    session.close(result.stop_reason)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from acode.agent.approval import MODES, ApprovalPolicy, Approver
from acode.agent.context_files import CONTEXT_FILE_NAMES, find_context_files
from acode.agent.fixing import FixSettings, TestDrivenFixer
from acode.agent.loop import AgentLoop, LoopConfig, close_open_tool_calls
from acode.agent.middlewares_factory import MiddlewareOptions, build_middlewares
from acode.agent.observer import LoopObserver
from acode.agent.recorder import SessionRecorder
from acode.agent.result import AgentResult
from acode.agent.system_prompt import build_system_prompt
from acode.config.settings import Settings
from acode.errors import UsageError
from acode.llm.protocol import ChatModel
from acode.llm.types import Message
from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore
from acode.tools.base import ToolContext, ToolRegistry

# Review-flavoured duplicates of chat tools: each tool's schema costs prompt tokens on every call.
CHAT_EXCLUDED_TOOLS = ("read_file_part", "search_in_files", "list_files")
INTERRUPTED = json.dumps({"error": "interrupted: the session ended before this call finished"})


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
    ui: Any = None
    extra_sections: Sequence[str] = ()  # more system prompt text (extensions, an approved plan)
    context_file_names: Sequence[str] = CONTEXT_FILE_NAMES
    exclude_tools: Sequence[str] = ()
    extra: dict[str, Any] = field(default_factory=dict)


def tool_context(settings: Settings, workspace: Path, *, session_id: str = "", interactive: bool = False,
                 ask_user: Callable[[list[str]], list[str]] | None = None) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        outputs_dir=ProjectPaths(workspace).outputs_dir,
        interactive=interactive,
        session_id=session_id,
        ask_user=ask_user,
        shell_inactivity_timeout=settings.agent.shell_inactivity_timeout,
        output_budget_chars=settings.agent.output_budget_chars,
    )


def chat_registry(interactive: bool, exclude: Sequence[str] = ()) -> ToolRegistry:
    from acode.tools.builtin import default_registry

    registry = default_registry()
    for name in [*CHAT_EXCLUDED_TOOLS, *exclude, *([] if interactive else ["ask_user"])]:
        registry.unregister(name)
    return registry


class AgentSession:
    def __init__(self, *, settings: Settings, workspace: Path, loop: AgentLoop, store: SessionStore,
                 options: SessionOptions, session_id: str, history: list[Message] | None = None):
        self.settings = settings
        self.workspace = workspace
        self.loop = loop
        self.store = store
        self.options = options
        self.extras = None  # MCP servers, reviewer, sub-agents (set by open); closed with the session
        mode = options.approval_mode or settings.agent.approval_mode
        self.state = loop.new_state(
            self.system_prompt(mode), session_id=session_id, approval_mode=mode,
            interactive=options.interactive, history=history,
        )
        self._attach_recorder(history)
        loop.ctx.session_id = session_id
        self.loop.start(self.state)

    # -- building ------------------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Settings, workspace: Path, options: SessionOptions | None = None, *,
             model: ChatModel | None = None, registry: ToolRegistry | None = None) -> AgentSession:
        from acode.agent.routing import build_agent_model

        options = options or SessionOptions()
        mode = options.approval_mode or settings.agent.approval_mode
        if mode not in MODES:
            raise UsageError("ACODE-AGENT-001", f"unknown approval mode '{mode}'", hint=f"use one of: {', '.join(MODES)}")
        workspace = workspace.resolve()
        store = SessionStore(ProjectPaths(workspace).db_file)
        history, session_id = None, ""
        if options.resume:
            info = store.resolve(options.resume)
            session_id, history = info.id, store.load_messages(info.id)
        model = model or build_agent_model(settings)
        extras = None
        if registry is None:
            registry = chat_registry(options.interactive, options.exclude_tools)
            extras = _attach_extras(registry, model, settings, workspace, options, mode)
        ctx = tool_context(settings, workspace, interactive=options.interactive, ask_user=options.ask_user)
        middlewares = build_middlewares(
            MiddlewareOptions(settings=settings, model=model, workspace=workspace, interactive=options.interactive,
                              no_loop_detection=options.no_loop_detection, approve_plan=options.approve_plan,
                              ui=options.ui, extra=dict(options.extra), registry=registry, ctx=ctx)
        )
        loop = AgentLoop(
            model, registry, ctx, config=LoopConfig.from_settings(settings), middlewares=middlewares,
            policy=ApprovalPolicy(settings.agent.rules, approver=options.approver), observers=options.observers,
            solver=TestDrivenFixer(FixSettings(**settings.agent.fix.model_dump())),
        )
        if not session_id:
            session_id = store.create(workspace, model=getattr(model, "name", ""), approval_mode=mode)
        session = cls(settings=settings, workspace=workspace, loop=loop, store=store, options=options,
                      session_id=session_id, history=history)
        session.extras = extras
        return session

    def system_prompt(self, mode: str) -> str:
        return build_system_prompt(
            workspace=self.workspace,
            tool_names=self.loop.registry.names(),
            approval_mode=mode,
            context_files=find_context_files(self.workspace, names=self.options.context_file_names),
            interactive=self.options.interactive,
            extra_sections=self.options.extra_sections,
        )

    def _attach_recorder(self, loaded: list[Message] | None) -> None:
        history = self.state.history
        self.recorder = SessionRecorder(self.store, self.state.session_id, recorded=history if loaded else [])
        if loaded:
            close_open_tool_calls(history, INTERRUPTED)  # a kill mid-tool left calls without results
            fresh = self.system_prompt(self.state.approval_mode)
            if history and history[0].role == "system" and history[0].content != fresh:
                history[0] = Message.system(fresh)
        self.loop.observers.items.insert(0, self.recorder)
        self.recorder.on_history(self.state)

    # -- using ---------------------------------------------------------------------------------
    @property
    def id(self) -> str:
        return self.state.session_id

    def send(self, prompt: str | None) -> AgentResult:
        return self.loop.send(self.state, prompt)

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise UsageError("ACODE-AGENT-001", f"unknown approval mode '{mode}'", hint=f"use one of: {', '.join(MODES)}")
        self.state.approval_mode = mode
        self.state.history[0] = Message.system(self.system_prompt(mode))
        self.recorder.on_history(self.state)
        self.store.update(self.id, approval_mode=mode)

    def close(self, reason: str = "closed") -> None:
        try:
            self.loop.end(self.state, reason)
        finally:
            self.store.close()
            if self.extras is not None:
                self.extras.close()  # stops MCP servers

    def restart(self, resume: str | None = None) -> AgentSession:
        """A fresh session (``/clear``) or another stored one (``/resume``) with the same parts."""
        self.loop.end(self.state, "switched")
        if resume:
            info = self.store.resolve(resume)
            session_id, history = info.id, self.store.load_messages(info.id)
        else:
            session_id = self.store.create(self.workspace, model=getattr(self.loop.model, "name", ""),
                                           approval_mode=self.state.approval_mode)
            history = None
        self.loop.observers.items.remove(self.recorder)
        self.loop.ctx.state.clear()
        options = replace(self.options, approval_mode=self.state.approval_mode)
        return AgentSession(settings=self.settings, workspace=self.workspace, loop=self.loop, store=self.store,
                            options=options, session_id=session_id, history=history)


def _attach_extras(registry, model, settings: Settings, workspace: Path, options: SessionOptions, mode: str):
    """MCP tools, the reviewer tool and invoke_agent (sub-agents) for a session-built registry. Extension
    context and exclusions already came in through ``options`` (the CLI selected the extensions)."""
    from acode.agent.extras import attach_extras

    from acode.extensions.loader import selection_of

    selection = selection_of(options.extra.get("extensions"))
    return attach_extras(
        registry, model, settings, workspace, selection,
        approval_mode=mode, approver=options.approver, interactive=options.interactive,
        reviewer=settings.agent.reviewer_tool, subagents=settings.agent.subagents,
    )
