"""Model routing: utility work (compression, loop checks, next-speaker, summaries) may go to a smaller
model than the agent's, configured per purpose; a cheap complexity rule may pick the model per prompt.

Models are built lazily (loading a GGUF costs seconds) and cached per effective settings. Every
decision is logged under ``acode.routing``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from acode.config.model import ModelSettings
from acode.config.routing import ModelChoice, RoutingSettings, UtilityPurpose
from acode.errors import ConfigError
from acode.llm.protocol import ChatModel

log = logging.getLogger("acode.routing")

ModelProvider = Callable[[], ChatModel]
ModelBuilder = Callable[[ModelSettings], ChatModel]


def _default_builder(settings: ModelSettings) -> ChatModel:
    from acode.llm.factory import build_model

    return build_model(settings)


class ModelRouter:
    def __init__(
        self,
        base: ModelSettings,
        routing: RoutingSettings | None = None,
        *,
        main_model: ChatModel | None = None,
        builder: ModelBuilder | None = None,
    ):
        self.base = base
        self.routing = routing or RoutingSettings()
        self._main = main_model
        self._builder = builder or _default_builder
        self._built: dict[str, ChatModel] = {}

    def settings_for(self, choice: ModelChoice | None) -> ModelSettings:
        overrides = choice.overrides() if choice else {}
        if not overrides:
            return self.base
        try:
            return ModelSettings.model_validate({**self.base.model_dump(), **overrides})
        except ValueError as exc:
            raise ConfigError(
                "ACODE-CFG-040",
                f"routing: invalid model choice {overrides}: {exc}",
                hint="fix the `routing` section",
            ) from None

    def _model(self, choice: ModelChoice | None) -> ChatModel:
        settings = self.settings_for(choice)
        if settings is self.base and self._main is not None:
            return self._main
        key = settings.model_dump_json()
        if key not in self._built:
            self._built[key] = self._builder(settings)
        return self._built[key]

    def _describe(self, choice: ModelChoice | None) -> str:
        settings = self.settings_for(choice)
        return str(settings.path) if settings.path else f"{settings.backend}:{settings.name}"

    def choice_for(self, purpose: UtilityPurpose) -> ModelChoice | None:
        return self.routing.purposes.get(purpose) or self.routing.utility

    def for_purpose(self, purpose: UtilityPurpose) -> ChatModel:
        choice = self.choice_for(purpose)
        log.info("routing: %s -> %s", purpose, self._describe(choice))
        return self._model(choice)

    def provider(self, purpose: UtilityPurpose) -> ModelProvider:
        """A zero-argument callable that builds (once) the model for ``purpose`` when first needed."""
        return lambda: self.for_purpose(purpose)

    def for_prompt(self, prompt: str) -> ChatModel:
        """The agent's model for this prompt: the main one unless the complexity rule is on."""
        rule = self.routing.complexity
        if not rule.enabled:
            return self._model(None)
        complex_prompt, why = classify_prompt(prompt, rule.max_simple_chars, rule.complex_words)
        choice = rule.complex_model if complex_prompt else rule.simple_model
        log.info(
            "routing: prompt (%d chars) is %s (%s) -> %s",
            len(prompt),
            "complex" if complex_prompt else "simple",
            why,
            self._describe(choice),
        )
        return self._model(choice)


def classify_prompt(prompt: str, max_simple_chars: int, complex_words: list[str]) -> tuple[bool, str]:
    """(is complex, why). Long prompts, several lines or a listed word make a prompt complex."""
    text = prompt.lower()
    if len(prompt) > max_simple_chars:
        return True, f"longer than {max_simple_chars} chars"
    if text.count("\n") >= 3:
        return True, "several lines"
    for word in complex_words:
        if word.lower() in text:
            return True, f"mentions '{word}'"
    return False, "short and plain"


def resolve_provider(model: ChatModel | ModelProvider | None) -> ChatModel | None:
    """Middlewares accept a model or a provider; this gives the model (building it if needed)."""
    if model is None:
        return None
    if hasattr(model, "complete"):
        return model  # type: ignore[return-value]
    return model()  # type: ignore[operator]


def describe_routing(router: ModelRouter) -> dict[str, Any]:
    """What each purpose would use, for `acode config show`-style output and the log."""
    purposes: tuple[UtilityPurpose, ...] = ("compression", "loop_check", "next_speaker", "summary")
    return {p: router._describe(router.choice_for(p)) for p in purposes}


class RoutedModel:
    """The agent's model when the complexity rule is on: each call goes to the model chosen for the
    newest user prompt (decided once per prompt, by rule, without a model call)."""

    def __init__(self, router: ModelRouter):
        self.router = router
        rule = router.routing.complexity
        windows = [router.settings_for(c).context_window for c in (rule.simple_model, rule.complex_model)]
        self.context_window = min(windows)  # compression must fit whichever model answers
        self._prompt: str | None = None
        self._current: ChatModel | None = None

    @property
    def name(self) -> str:
        return getattr(self._current, "name", "routed")

    def select(self, prompt: str) -> None:
        """Pick the model for a new user prompt (acode.agent.middlewares.routing calls this for each
        one)."""
        self._prompt, self._current = prompt, self.router.for_prompt(prompt)

    def _for(self, messages: Any) -> ChatModel:
        if self._current is None:
            prompt = next((m.content for m in reversed(messages) if m.role == "user"), "")
            self.select(prompt)
        assert self._current is not None
        return self._current

    def complete(self, messages: Any, **kwargs: Any) -> Any:
        return self._for(messages).complete(messages, **kwargs)

    def count_tokens(self, text: str) -> int:
        if self._current is None:
            self.select("")
        assert self._current is not None
        return self._current.count_tokens(text)


def build_agent_model(settings: Any, builder: ModelBuilder | None = None) -> ChatModel:
    """The main model, or a RoutedModel when ``routing.complexity.enabled``."""
    router = ModelRouter(settings.model, settings.routing, builder=builder)
    if settings.routing.complexity.enabled:
        return RoutedModel(router)  # type: ignore[return-value]
    return router.for_prompt("")
