"""Builds the self-control middlewares of a session from settings (listed in
``middlewares_factory.BUILDERS``). Order matters: plan mode first (it denies before hooks run and
rewrites exit_plan_mode's result), compression before the nudges, hooks after them (they see the
final history), checkpoints last (a snapshot only for an edit nobody refused)."""

from __future__ import annotations

import json
import logging

from acode.agent.checkpoints import Checkpoints
from acode.agent.compression import Compression
from acode.agent.hook_runner import HookRunner
from acode.agent.hooks import HooksMiddleware
from acode.agent.loop_detection import LoopDetection
from acode.agent.middleware import Middleware
from acode.agent.middlewares_factory import MiddlewareOptions
from acode.agent.next_speaker import NextSpeakerCheck
from acode.agent.plan_mode import PlanMode, plan_tools
from acode.agent.routing import ModelRouter, RoutedModel, RoutingMiddleware, describe_routing
from acode.agent.system_prompt import MODE_NOTES
from acode.agent.validation_nudge import ValidationNudge
from acode.paths import ProjectPaths

log = logging.getLogger("acode.agent")


def build_self_control(options: MiddlewareOptions) -> list[Middleware]:
    settings = options.settings
    router = ModelRouter(settings.model, settings.routing, main_model=options.model)
    log.debug("utility models: %s", describe_routing(router))
    registry = getattr(options, "registry", None)
    ctx = getattr(options, "ctx", None)
    if registry is not None:
        for tool in plan_tools():
            if tool.name not in registry:
                registry.register(tool)

    middlewares: list[Middleware] = []
    if isinstance(options.model, RoutedModel):
        middlewares.append(RoutingMiddleware(options.model))
    ui = options.ui
    middlewares.append(
        PlanMode(
            approver=getattr(ui, "approve_plan", None),
            approve_plan=options.approve_plan,
            ctx=ctx,
            mode_notes=MODE_NOTES,
        )
    )
    hooks = None
    if settings.hooks.any_configured():
        notify = getattr(ui, "notify", None)
        hooks = HooksMiddleware(HookRunner(settings.hooks, session_id="", cwd=options.workspace, notify=notify))
    if settings.compression.enabled:
        middlewares.append(
            Compression(
                options.model,
                settings.compression,
                summarizer=router.provider("compression") if _routed(router, "compression") else None,
                outputs_dir=ProjectPaths(options.workspace).outputs_dir,
                fixed_tokens=_schema_tokens(options),
                on_pre_compress=hooks.pre_compress if hooks else None,
            )
        )
    if settings.loop_detection.enabled and not options.no_loop_detection:
        middlewares.append(LoopDetection(settings.loop_detection, model=router.provider("loop_check")))
    if hooks is not None:
        middlewares.append(hooks)
    if settings.next_speaker.enabled:
        middlewares.append(
            NextSpeakerCheck(
                settings.next_speaker, max_turns=settings.agent.max_turns, model=router.provider("next_speaker")
            )
        )
    if settings.checkpoints.enabled:
        middlewares.append(Checkpoints(options.workspace, keep=settings.checkpoints.keep))
    if settings.agent.nudge_validation and registry is not None:
        middlewares.append(
            ValidationNudge(
                registry,
                max_turns=settings.agent.max_turns,
                shell_allowed_without_asking=bool(settings.agent.rules.allow_shell),
            )
        )
    return middlewares


def _routed(router: ModelRouter, purpose: str) -> bool:
    return router.choice_for(purpose) is not None  # type: ignore[arg-type]


def _schema_tokens(options: MiddlewareOptions) -> int:
    """Tokens the tool schemas add to every prompt (the backend sends them with each call)."""
    registry = getattr(options, "registry", None)
    if registry is None:
        return 0
    specs = json.dumps([spec.model_dump() for spec in registry.specs()])
    return options.model.count_tokens(specs)
