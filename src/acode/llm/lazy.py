"""The embedded model, loaded when a step first asks it something.

Loading the 1.5B takes seconds (14 s on two busy cores), and a review often asks the model nothing (checks
only, or the project's tests decide). Until its first ``complete``/``score_text`` this ChatModel counts
tokens with the model's own tokenizer read from the GGUF file without its weights (about 1 s), so what
is counted is exactly what the loaded model would count. The first load says so on stderr (through
``say``), and the first use of a bundled model that was never assembled says that too.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acode.config.model import ModelSettings
from acode.llm.factory import build_model
from acode.llm.protocol import ChatModel
from acode.llm.scoring import TextScore
from acode.llm.types import Completion, Message

log = logging.getLogger("acode.llm")


def build_model_when_needed(settings: ModelSettings, say: Callable[[str], None]) -> ChatModel:
    """As ``build_model``, but the embedded model loads on its first call, announced through ``say``; the
    other backends cost nothing to build."""
    if settings.backend == "embedded":
        return LazyEmbeddedModel(settings, say=say)
    return build_model(settings)


class LazyEmbeddedModel:
    def __init__(self, settings: ModelSettings, *, say: Callable[[str], None]):
        self.settings = settings
        # as EmbeddedModel names itself: the bundled name, or the file's stem for a model.path
        self.name = settings.name if settings.path is None else Path(settings.path).expanduser().stem
        self.context_window = settings.context_window
        self._say = say
        self._model: Any = None
        self._vocabulary: Any = None
        self._lock = threading.RLock()

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def model(self) -> ChatModel:
        """The real model, loaded on the first call (once per process, shared through build_model)."""
        with self._lock:
            if self._model is None:
                self._say(f"preparing the model {self.name}{self._first_time()}")
                started = time.monotonic()
                self._model = build_model(self.settings)
                self._vocabulary = None
                log.debug("loaded %s in %.1f s", self.name, time.monotonic() - started)
            return self._model

    def complete(self, messages: Sequence[Message], **kwargs: Any) -> Completion:
        return self.model().complete(messages, **kwargs)

    def score_text(self, prefix: str, text: str, *, timeout: float | None = None) -> TextScore:
        return self.model().score_text(prefix, text, timeout=timeout)  # type: ignore[attr-defined]

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._lock:
            if self._model is not None:
                return self._model.count_tokens(text)
            return len(self._tokenizer().tokenize(text.encode("utf-8"), False, False))

    def _tokenizer(self) -> Any:
        """llama.cpp's vocabulary-only load (no weights, no context): the same ``tokenize`` the loaded model
        calls, so the counts are the same."""
        if self._vocabulary is None:
            from acode.llm.bundled import resolve_model_path
            from acode.llm.embedded import _import_llama

            llama_cpp = _import_llama()
            # a model without a context: llama.cpp's plain Llama(vocab_only=True) still makes one, and
            # warns on stderr about its size
            from llama_cpp._internals import LlamaModel

            first = self._first_time()
            if first:
                self._say(f"preparing the model {self.name}{first}")
            path = resolve_model_path(self.settings)
            params = llama_cpp.llama_model_default_params()
            params.vocab_only = True
            self._vocabulary = LlamaModel(path_model=str(path), params=params, verbose=False)
        return self._vocabulary

    def _first_time(self) -> str:
        """' (first time: assembling)' when the bundled model's file has not been put together yet."""
        if self.settings.path is not None:
            return ""
        from acode.llm.bundled import assembled_path, get_bundled

        assembled = assembled_path(get_bundled(self.settings.name)).is_file()
        return "" if assembled else " (first time: assembling)"
