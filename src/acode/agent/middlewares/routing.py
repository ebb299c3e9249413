"""Per-prompt model choice (``routing.complexity``): each new user prompt picks the model that answers it
(see acode.llm.routing)."""

from __future__ import annotations

from acode.agent.loop.middleware import AgentState, Middleware
from acode.llm.routing import RoutedModel


class RoutingMiddleware(Middleware):
    name = "routing"

    def __init__(self, model: RoutedModel):
        self.model = model

    def on_user_prompt(self, state: AgentState, prompt: str) -> str | None:
        self.model.select(prompt)
        return None
