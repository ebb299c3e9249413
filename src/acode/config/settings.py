"""The root settings model. Each section lives in its own module beside this one."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from acode.config.agent import AgentSettings
from acode.config.model import ModelSettings


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelSettings = Field(default_factory=ModelSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
