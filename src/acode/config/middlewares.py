"""Settings of the agent's self-control: loop detection, the next-speaker check, compression, checkpoints."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LoopDetectionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="false (or --no-loop-detection) turns every level off")
    tool_call_repeats: int = Field(5, ge=2, description="a cycle of 1..max_cycle calls repeated this often")
    max_cycle: int = Field(5, ge=1, le=10, description="the longest cycle of tool calls looked for")
    chunk_chars: int = Field(50, ge=10, description="text chanting: size of the compared chunks")
    chunk_repeats: int = Field(10, ge=3, description="text chanting: repeats of one chunk that flag a loop")
    model_check: bool = Field(True, description="occasionally ask the utility model about the recent history")
    model_check_after_turns: int = Field(30, ge=1, description="turns before the first model check")
    model_check_min_interval: int = Field(
        5, ge=1, description="turns to the next check when the last was sure of a loop"
    )
    model_check_max_interval: int = Field(
        15, ge=1, description="turns to the next check when the last saw none"
    )
    model_check_confidence: float = Field(
        0.9, ge=0.0, le=1.0, description="the model's confidence that stops the turn as a loop"
    )


class NextSpeakerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="after an answer that stops mid-task, nudge the model to go on")
    use_model: bool = Field(True, description="ask the utility model when the cheap rules cannot tell")
    max_continues: int = Field(3, ge=0, description="'Please continue.' nudges in a row at most")


class CompressionSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="summarise older history when the context fills up")
    threshold: float = Field(
        0.5, gt=0.0, lt=1.0, description="fraction of the context window that triggers it"
    )
    keep_recent: float = Field(
        0.3, gt=0.0, lt=1.0, description="newest fraction of the history kept verbatim"
    )
    mask_tool_output_tokens: int = Field(
        400,
        ge=50,
        description="older tool outputs larger than this are replaced by a preview and a file path",
    )
    summary_max_tokens: int = Field(600, ge=64, description="tokens of the summary at most")


class CheckpointSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(True, description="record the files before each edit, for /restore")
    keep: int = Field(50, ge=1, description="checkpoints kept per session (oldest dropped first)")
