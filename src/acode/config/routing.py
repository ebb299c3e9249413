"""Settings of model routing: which model serves each utility purpose, and an optional per-prompt rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

UtilityPurpose = Literal["compression", "loop_check", "next_speaker", "summary"]


class ModelChoice(BaseModel):
    """Fields that differ from the main `model` section; anything not given is inherited from it."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["embedded", "openai", "scripted", "none"] | None = Field(
        None, description="as model.backend")
    name: str | None = Field(None, description="as model.name")
    path: Path | None = Field(None, description="as model.path")
    context_window: int | None = Field(None, ge=512, le=1_048_576, description="as model.context_window")
    max_tokens: int | None = Field(None, ge=1, description="as model.max_tokens")
    base_url: str | None = Field(None, description="as model.base_url")
    script: Path | None = Field(None, description="as model.script")

    def overrides(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class ComplexityRule(BaseModel):
    """A cheap rule (no model call): long prompts or prompts with these words go to `complex_model`."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(False, description="route each prompt by this rule")
    simple_model: ModelChoice = Field(default_factory=ModelChoice)
    complex_model: ModelChoice = Field(default_factory=ModelChoice)
    max_simple_chars: int = Field(160, ge=1, description="a longer prompt is complex")
    complex_words: list[str] = Field(
        default_factory=lambda: [
            "refactor",
            "debug",
            "design",
            "architecture",
            "migrate",
            "optimi",
            "why",
            "concurren",
            "security",
        ],
        description="a prompt holding one of these (as a part of a word) is complex",
    )


class RoutingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    utility: ModelChoice | None = Field(None, description="default model for every utility purpose")
    purposes: dict[UtilityPurpose, ModelChoice] = Field(
        default_factory=dict,
        description="a model per purpose: compression, loop_check, next_speaker, summary"
    )
    complexity: ComplexityRule = Field(default_factory=ComplexityRule)
