"""Putting an agent session together from settings, in one place: the model, the tools (built-in, MCP,
reviewer, sub-agents, minus what extensions exclude), the tool context, the middlewares in the order
their hooks run, the loop, the store and the system prompt.

    session = build_session(settings, workspace, SessionOptions(approval_mode="yolo", extensions=enabled))

Tests and benchmarks may pass their own ``model`` and ``registry`` (a given registry gets no MCP,
reviewer or sub-agent tools).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from acode.agent.approval.policy import ApprovalPolicy
from acode.agent.fixing import TestDrivenFixer
from acode.agent.loop.agent_loop import AgentLoop, LoopConfig
from acode.agent.middlewares.checkpoints import Checkpoints
from acode.agent.middlewares.compression import Compression
from acode.agent.middlewares.hook_runner import HookRunner
from acode.agent.middlewares.hooks import HooksMiddleware
from acode.agent.middlewares.loop_detection import LoopDetection
from acode.agent.middlewares.next_speaker import NextSpeakerCheck
from acode.agent.middlewares.plan_mode import ENTER, EXIT, PlanMode, plan_tools
from acode.agent.middlewares.routing import RoutingMiddleware
from acode.agent.middlewares.validation_nudge import ValidationNudge
from acode.agent.session.added_tools import add_tools
from acode.agent.session.agent_session import (
    AgentSession,
    SessionMiddlewares,
    SessionOptions,
    SessionUI,
    check_mode,
)
from acode.agent.session.system_prompt import MODE_NOTES
from acode.command_sandbox import command_sandbox
from acode.config.settings import Settings
from acode.extensions.manifest import Extension
from acode.llm.protocol import ChatModel
from acode.llm.routing import ModelRouter, RoutedModel, build_agent_model, describe_routing
from acode.paths import ProjectPaths
from acode.store.sessions import SessionStore
from acode.tools.base import ToolContext, ToolRegistry

log = logging.getLogger("acode.agent")

# Review-flavoured duplicates of chat tools: each tool's schema costs prompt tokens on every call.
CHAT_EXCLUDED_TOOLS = ("read_file_part", "search_in_files", "list_files")


def chat_registry(interactive: bool, exclude: Sequence[str] = ()) -> ToolRegistry:
    from acode.tools.builtin import default_registry

    registry = default_registry()
    for name in [*CHAT_EXCLUDED_TOOLS, *exclude, *([] if interactive else ["ask_user"])]:
        registry.unregister(name)
    return registry


def build_session(settings: Settings, workspace: Path, options: SessionOptions | None = None, *,
                  model: ChatModel | None = None, registry: ToolRegistry | None = None) -> AgentSession:
    options = options or SessionOptions()
    mode = check_mode(options.approval_mode or settings.agent.approval_mode)
    workspace = workspace.resolve()
    store = SessionStore(ProjectPaths(workspace).db_file)
    history, session_id = None, ""
    if options.resume:
        info = store.resolve(options.resume)
        session_id, history = info.id, store.load_messages(info.id)
    model = model or build_agent_model(settings)
    problems: list[str] = []
    extensions = _enabled_extensions(workspace, options.extensions, problems)
    added = None
    if registry is None:
        registry = chat_registry(options.interactive)
        added = add_tools(registry, model, settings, workspace, extensions, approval_mode=mode,
                          approver=options.approver, interactive=options.interactive, problems=problems,
                          reviewer=settings.agent.reviewer_tool, subagents=settings.agent.subagents)
    ctx = ToolContext.from_settings(
        workspace,
        settings.agent,
        outputs_dir=ProjectPaths(workspace).outputs_dir,
        interactive=options.interactive,
        ask_user=options.ask_user,
        sandbox=command_sandbox(settings.sandbox),
    )
    middlewares = session_middlewares(settings, model, workspace, registry, ctx, options)
    loop = AgentLoop(
        model,
        registry,
        ctx,
        config=replace(LoopConfig.from_settings(settings), judge_outcome=not options.interactive,
                       requested_run=True),
        middlewares=middlewares.in_order(),
        policy=ApprovalPolicy(settings.agent.rules, approver=options.approver),
        observers=options.observers,
        solver=TestDrivenFixer(settings.agent.fix),
    )
    if not session_id:
        session_id = store.create(workspace, model=getattr(model, "name", ""), approval_mode=mode)
    return AgentSession(
        settings=settings,
        workspace=workspace,
        loop=loop,
        store=store,
        options=options,
        session_id=session_id,
        middlewares=middlewares,
        extensions=extensions,
        added_tools=added,
        history=history,
    )


def _enabled_extensions(
    workspace: Path, given: Sequence[Extension] | None, problems: list[str]
) -> list[Extension]:
    if given is not None:
        return list(given)
    from acode.extensions.loader import discover_extensions

    return list(discover_extensions(workspace, problems=problems).values())


def session_middlewares(
    settings: Settings,
    model: ChatModel,
    workspace: Path,
    registry: ToolRegistry,
    ctx: ToolContext,
    options: SessionOptions,
) -> SessionMiddlewares:
    """The self-control middlewares the settings turn on (plan mode is always there: /plan and the
    enter_plan_mode tool need it). Plan mode's tools join the registry where they can be of use."""
    router = ModelRouter(settings.model, settings.routing, main_model=model)
    log.debug("utility models: %s", describe_routing(router))
    for tool in plan_tools(offered_to(options, settings)):
        if tool.name not in registry:
            registry.register(tool)
    ui: SessionUI | None = options.ui
    made = SessionMiddlewares(
        plan_mode=PlanMode(
            approver=ui.approve_plan if ui else None,
            approve_plan=options.approve_plan,
            ctx=ctx,
            mode_notes=MODE_NOTES,
        ),
        routing=RoutingMiddleware(model) if isinstance(model, RoutedModel) else None,
    )
    if settings.hooks.any_configured():
        made.hooks = HooksMiddleware(
            HookRunner(settings.hooks, session_id="", cwd=workspace, notify=ui.notify if ui else None)
        )
    if settings.compression.enabled:
        routed = router.choice_for("compression") is not None
        made.compression = Compression(
            model,
            settings.compression,
            summarizer=router.provider("compression") if routed else None,
            outputs_dir=ProjectPaths(workspace).outputs_dir,
            fixed_tokens=_schema_tokens(model, registry),
            on_pre_compress=made.hooks.pre_compress if made.hooks else None,
        )
    if settings.loop_detection.enabled and not options.no_loop_detection:
        made.loop_detection = LoopDetection(settings.loop_detection, model=router.provider("loop_check"))
    if settings.next_speaker.enabled:
        made.next_speaker = NextSpeakerCheck(
            settings.next_speaker, max_turns=settings.agent.max_turns, model=router.provider("next_speaker")
        )
    if settings.checkpoints.enabled:
        made.checkpoints = Checkpoints(workspace, keep=settings.checkpoints.keep)
    if settings.agent.nudge_validation:
        made.validation_nudge = ValidationNudge(
            registry,
            max_turns=settings.agent.max_turns,
            shell_allowed_without_asking=bool(settings.agent.rules.allow_shell),
        )
    return made


def offered_to(options: SessionOptions, settings: Settings) -> tuple[str, ...]:
    """Which plan-mode tools a session offers. A one-shot run has nobody to approve a plan: it gets
    ``exit_plan_mode`` only when it starts in plan mode (the plan is its answer) and ``enter_plan_mode``
    only with --approve-plan. Without them the 1.5B toggled the two for minutes after its work was done."""
    if options.interactive:
        return (ENTER, EXIT)
    planning = (options.approval_mode or settings.agent.approval_mode) == "plan"
    names = [ENTER] if options.approve_plan else []
    if planning or options.approve_plan:
        names.append(EXIT)
    return tuple(names)


def _schema_tokens(model: ChatModel, registry: ToolRegistry) -> int:
    """Tokens the tool schemas add to every prompt (the backend sends them with each call)."""
    specs = json.dumps([spec.model_dump() for spec in registry.specs()])
    return model.count_tokens(specs)
