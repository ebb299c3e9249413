"""The KV state of system prompts on disk, so the next process reads a prompt's fixed start from a file
instead of evaluating it again.

Every `acode run` starts its planner call with the same system prompt (~500 tokens with its JSON schema)
and every plan step with the same writer prompt; each new process used to evaluate them from scratch, at
26-52 tokens a second on 2 cores. The state of the whole aligned chunks of such a prefix (acode.llm.
kv_cache) is kept here, keyed by the model file and the exact tokens: loading it gives the KV cache the
very values an evaluation would compute (the same aligned chunks), so answers do not change, only the
time. Entries are a few MB (~28 KB a token for the 1.5B); the oldest go when ``limit_bytes`` is passed.
Any failure to read or write an entry only means the prefix is evaluated as before.
"""

from __future__ import annotations

import ctypes
import hashlib
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

log = logging.getLogger("acode.llm")

SUFFIX = ".kv"


class PrefixStore:
    def __init__(self, folder: Path, model_path: Path, limit_bytes: int, llama_cpp: Any):
        self.folder = folder
        self.limit_bytes = limit_bytes
        self._llama_cpp = llama_cpp
        stat = model_path.stat()
        identity = f"{model_path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{llama_cpp.__version__}"
        self._model_key = hashlib.sha256(identity.encode()).hexdigest()[:16]

    def _file(self, tokens: list[int]) -> Path:
        digest = hashlib.sha256(self._model_key.encode() + bytes(str(tokens), "ascii")).hexdigest()[:32]
        return self.folder / f"{digest}{SUFFIX}"

    def has(self, tokens: list[int]) -> bool:
        return self._file(tokens).is_file()

    def load(self, llm: Any, tokens: list[int]) -> bool:
        """Put the stored state of ``tokens`` in the emptied cache of ``llm``; False when there is none
        (another process may have just removed it) or it does not load: the cache is then empty."""
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        path = self._file(tokens)
        try:
            data = path.read_bytes()
        except OSError:
            return False
        buffer = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        if self._llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buffer, len(data), 0) != len(data):
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)
            log.info("the stored prompt state %s did not load; evaluating instead", path.name)
            return False
        llm.input_ids[: len(tokens)] = tokens
        llm.n_tokens = len(tokens)
        try:
            os.utime(path)  # recently used: kept longest
        except OSError:
            pass
        return True

    def save(self, llm: Any, tokens: list[int]) -> None:
        """Store the cache of ``llm``, which holds exactly ``tokens``."""
        size = self._llama_cpp.llama_state_seq_get_size(llm._ctx.ctx, 0)
        if not size or size > self.limit_bytes:
            return
        buffer = (ctypes.c_uint8 * size)()
        written = self._llama_cpp.llama_state_seq_get_data(llm._ctx.ctx, buffer, size, 0)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.folder, suffix=".part", delete=False) as handle:
                handle.write(bytes(buffer)[:written])
            os.replace(handle.name, self._file(tokens))  # readers never see half a file
            self._trim()
        except OSError as exc:
            log.info("could not store the prompt state in %s: %s", self.folder, exc)

    def _trim(self) -> None:
        entries = sorted(self.folder.glob(f"*{SUFFIX}"), key=lambda p: p.stat().st_mtime, reverse=True)
        total = 0
        for entry in entries:
            total += entry.stat().st_size
            if total > self.limit_bytes:
                entry.unlink(missing_ok=True)
