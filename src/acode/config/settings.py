"""The root settings model. Each section lives in its own module beside this one."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from acode.config.agent import AgentSettings
from acode.config.git import GitSettings
from acode.config.hooks import HooksSettings
from acode.config.mcp import McpServerSettings
from acode.config.middlewares import (
    CheckpointSettings,
    CompressionSettings,
    LoopDetectionSettings,
    NextSpeakerSettings,
)
from acode.config.model import ModelSettings
from acode.config.pipeline import PipelineSettings
from acode.config.review import ReviewerSettings
from acode.config.routing import RoutingSettings
from acode.config.sandbox import SandboxSettings
from acode.config.trust import ProjectTrust


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: ModelSettings = Field(default_factory=ModelSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    pipeline: PipelineSettings = Field(default_factory=PipelineSettings)
    reviewer: ReviewerSettings = Field(default_factory=ReviewerSettings)
    loop_detection: LoopDetectionSettings = Field(default_factory=LoopDetectionSettings)
    next_speaker: NextSpeakerSettings = Field(default_factory=NextSpeakerSettings)
    compression: CompressionSettings = Field(default_factory=CompressionSettings)
    checkpoints: CheckpointSettings = Field(default_factory=CheckpointSettings)
    hooks: HooksSettings = Field(default_factory=HooksSettings)
    routing: RoutingSettings = Field(default_factory=RoutingSettings)
    mcp_servers: dict[str, McpServerSettings] = Field(default_factory=dict)
    git: GitSettings = Field(default_factory=GitSettings)
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    # Set by the loader, never by a file: whether the project's own settings were trusted (config.trust).
    _trust: ProjectTrust = PrivateAttr(default_factory=ProjectTrust)
    # Set by the loader: dotted key -> where its value came from (a file, a variable, the flags).
    _origins: dict[str, str] = PrivateAttr(default_factory=dict)

    @property
    def trust(self) -> ProjectTrust:
        return self._trust

    def origin(self, dotted: str) -> str:
        """Where the value of ``dotted`` (``model.name``) came from: a file, a variable, the command-line
        flags, or "default"."""
        return self._origins.get(dotted, "default")
