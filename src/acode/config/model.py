"""Settings of the model backends."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["embedded", "openai", "scripted"] = "embedded"
    # embedded: a bundled model name (see `acode models list`); openai: the server's model name
    name: str = "qwen2.5-coder-1.5b"
    path: Path | None = Field(None, description="any GGUF file; overrides `name` for the embedded backend")
    context_window: int = Field(8192, ge=512, le=1_048_576)
    threads: int | None = Field(
        None, ge=1, description="CPU threads for llama.cpp (default: the idle cores when the model loads)"
    )
    gpu_layers: int = Field(0, ge=-1)
    prompt_cache_mb: int = Field(
        512, ge=0, description="embedded: disk space (in the user cache folder) for the KV state of system "
        "prompts, read back by later processes instead of evaluated again; 0: off"
    )
    prompt_cache_dir: Path | None = Field(None, description="where that state is kept (default: "
                                          "prompt-cache in the user cache folder)")
    max_tokens: int = Field(1024, ge=1)
    seed: int = 0
    base_url: str = "http://127.0.0.1:11434/v1"
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="hosts besides loopback and private networks that acode may send requests to "
        "(names, IPs or CIDR networks); anything else is refused before a request is made",
    )
    api_key_env: str = Field("ACODE_API_KEY", description="environment variable that holds the API key")
    native_tool_calling: Literal["auto", "on", "off"] = "auto"
    timeout_seconds: float = Field(300.0, gt=0)
    retries: int = Field(2, ge=0, le=10)
    script: Path | None = Field(None, description="scripted backend: a YAML/JSON list of answers (tests)")
