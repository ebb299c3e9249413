"""Settings of the model backends."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class ModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: Literal["embedded", "openai", "scripted", "none"] = Field(
        "embedded", description="embedded: llama.cpp in this process; openai: an OpenAI-compatible server; "
        "scripted: answers from `script` (tests); none: no model (a review runs its checks only and names "
        "the model steps it left out)"
    )
    # embedded: a bundled model name (see `acode models list`); openai: the server's model name
    name: str = "qwen2.5-coder-1.5b"
    path: Path | None = Field(None, description="any GGUF file; overrides `name` for the embedded backend")
    context_window: int = Field(
        8192, ge=512, le=1_048_576, description="tokens of context the model is run with"
    )
    threads: int | None = Field(
        None, ge=1, description="CPU threads for llama.cpp (default: the idle cores when the model loads)"
    )
    gpu_layers: int = Field(
        0, ge=-1, description="embedded: layers offloaded to a GPU (-1: all, 0: CPU only)"
    )
    prompt_cache_mb: int = Field(
        512, ge=0, description="embedded: disk space (in the user cache folder) for the KV state of system "
        "prompts, read back by later processes instead of evaluated again; 0: off"
    )
    prompt_cache_dir: Path | None = Field(None, description="where that state is kept (default: "
                                          "prompt-cache in the user cache folder)")
    max_tokens: int = Field(1024, ge=1, description="tokens generated per model call at most")
    seed: int = Field(0, description="sampling seed, so runs repeat")
    base_url: str = Field(
        "http://127.0.0.1:11434/v1", description="openai: the server's address (default: Ollama)"
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="hosts besides loopback and private networks that acode may send requests to "
        "(names, IPs or CIDR networks); anything else is refused before a request is made",
    )
    api_key_env: str = Field("ACODE_API_KEY", description="environment variable that holds the API key")
    native_tool_calling: Literal["auto", "on", "off"] = Field(
        "auto", description="openai: on: the server's own tool calls; off: JSON-schema answers; auto: probe "
        "once per server and model, and remember"
    )
    timeout_seconds: float = Field(300.0, gt=0, description="openai: seconds one request may take")
    retries: int = Field(2, ge=0, le=10, description="openai: retries of a failed request")
    script: Path | None = Field(None, description="scripted backend: a YAML/JSON list of answers (tests)")
