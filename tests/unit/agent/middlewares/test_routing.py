"""Model routing: per-purpose utility models, the complexity rule, lazy building, logged decisions."""

from __future__ import annotations

import logging

import pytest

from acode.agent.loop.middleware import AgentState
from acode.agent.middlewares.routing import RoutingMiddleware
from acode.config.model import ModelSettings
from acode.config.routing import RoutingSettings
from acode.config.settings import Settings
from acode.llm.routing import (
    ModelRouter,
    RoutedModel,
    build_agent_model,
    classify_prompt,
)
from acode.llm.scripted import ScriptedModel
from acode.llm.types import Message


class Builder:
    def __init__(self):
        self.built: list[ModelSettings] = []

    def __call__(self, settings: ModelSettings):
        self.built.append(settings)
        return ScriptedModel(["ok"] * 5, name=settings.name, context_window=settings.context_window)


BASE = ModelSettings(backend="scripted", name="qwen2.5-coder-1.5b", context_window=8192)


def test_utility_purposes_use_their_configured_model_built_once_and_logged(caplog):
    routing = RoutingSettings.model_validate(
        {
            "utility": {"name": "qwen2.5-coder-0.5b", "context_window": 4096},
            "purposes": {"summary": {"name": "big-summary"}},
        }
    )
    builder = Builder()
    main = ScriptedModel([], name="main")
    router = ModelRouter(BASE, routing, main_model=main, builder=builder)
    with caplog.at_level(logging.INFO, logger="acode.routing"):
        compression = router.for_purpose("compression")
        loop_check = router.provider("loop_check")()
        summary = router.for_purpose("summary")
    assert compression is loop_check and compression.name == "qwen2.5-coder-0.5b"
    assert compression.context_window == 4096
    assert summary.name == "big-summary"
    assert [s.name for s in builder.built] == ["qwen2.5-coder-0.5b", "big-summary"]
    assert "compression -> scripted:qwen2.5-coder-0.5b" in caplog.text
    assert "summary -> scripted:big-summary" in caplog.text


def test_without_routing_utilities_use_the_main_model():
    main = ScriptedModel([], name="main")
    router = ModelRouter(BASE, RoutingSettings(), main_model=main, builder=Builder())
    assert router.for_purpose("next_speaker") is main


@pytest.mark.parametrize(
    ("prompt", "is_complex"),
    [
        ("add is_even to util.py", False),
        ("refactor the parser into smaller modules", True),
        ("x" * 300, True),
        ("fix:\n- a\n- b\n- c", True),
    ],
)
def test_complexity_rule(prompt, is_complex):
    assert classify_prompt(prompt, 160, ["refactor"])[0] is is_complex


def test_routed_model_picks_per_prompt(caplog):
    settings = Settings.model_validate(
        {
            "model": BASE.model_dump(),
            "routing": {
                "complexity": {
                    "enabled": True,
                    "simple_model": {"name": "qwen2.5-coder-0.5b"},
                    "complex_model": {"name": "qwen2.5-coder-1.5b", "context_window": 4096},
                }
            },
        }
    )
    builder = Builder()
    model = build_agent_model(settings, builder=builder)
    assert isinstance(model, RoutedModel) and model.context_window == 4096
    middleware = RoutingMiddleware(model)
    state = AgentState(session_id="s", workspace=".", history=[], approval_mode="default")  # type: ignore[arg-type]
    with caplog.at_level(logging.INFO, logger="acode.routing"):
        middleware.on_user_prompt(state, "add is_even to util.py")
        model.complete([Message.user("add is_even to util.py")])
        assert model.name == "qwen2.5-coder-0.5b"
        middleware.on_user_prompt(state, "refactor the whole config loader")
        model.complete([Message.user("refactor the whole config loader")])
        assert model.name == "qwen2.5-coder-1.5b"
    assert "is simple" in caplog.text and "is complex (mentions 'refactor')" in caplog.text


def test_invalid_choice_is_a_config_error():
    router = ModelRouter(
        BASE, RoutingSettings.model_validate({"utility": {"context_window": 600}}), builder=Builder()
    )
    assert router.settings_for(router.routing.utility).context_window == 600
    with pytest.raises(ValueError):
        RoutingSettings.model_validate({"utility": {"context_window": 10}})
