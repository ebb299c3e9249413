"""Settings of git integration in the agent (aider-style commits)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class GitSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    auto_commit: bool = Field(
        False, description="commit each agent turn that changed files (only those files), marked as acode's; "
        "also --auto-commit",
    )
