"""Build the ChatModel that settings ask for. Heavy backends are imported only here, only when used."""

from __future__ import annotations

import threading

from acode.config.model import ModelSettings
from acode.errors import ConfigError
from acode.llm.protocol import ChatModel

_embedded_cache: dict[tuple, ChatModel] = {}
_lock = threading.Lock()


def build_model(settings: ModelSettings) -> ChatModel:
    if settings.backend == "scripted":
        from acode.llm.scripted import ScriptedModel

        if settings.script is None:
            raise ConfigError(
                "ACODE-CFG-022",
                "model.backend is 'scripted' but model.script is not set",
                hint="set model.script to a YAML list of answers, or use backend 'embedded'",
            )
        return ScriptedModel.from_file(settings.script, context_window=settings.context_window)
    if settings.backend == "none":
        from acode.llm.no_model import NoModel

        return NoModel(settings.context_window)
    if settings.backend == "openai":
        from acode.llm.openai.model import OpenAIModel

        return OpenAIModel(settings)
    from acode.llm.bundled import resolve_model_path
    from acode.llm.embedded import EmbeddedModel

    path = resolve_model_path(settings)
    key = (str(path), settings.context_window, settings.threads, settings.gpu_layers,
           settings.prompt_cache_mb, settings.prompt_cache_dir)
    with _lock:  # one llama.cpp instance per file and shape per process: loading costs seconds
        if key not in _embedded_cache:
            _embedded_cache[key] = EmbeddedModel(path, settings)
        return _embedded_cache[key]

