"""The embedded backend: llama.cpp in this process (llama-cpp-python, imported only when a model loads).

One llama context per model, guarded by a lock. Every call formats its own prompt with the model's chat
template, finds the prefix it shares with the tokens already in the KV cache and evaluates only the
rest (acode.llm.kv_cache), so an agent turn that appends to the conversation pays only for what is new.
A system prompt's state is also kept on disk (acode.llm.prefix_store), so the next process does not
evaluate it again.
Tool calls and JSON output are decoded under a grammar built from their JSON schema, which is what makes
small models reliable tool users.
"""

from __future__ import annotations

import codecs
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from acode.config.model import ModelSettings
from acode.errors import ModelError, ModelNotInstalledError, ModelOutputError, ModelTimeoutError
from acode.llm.chat_template import ChatTemplate
from acode.llm.greedy_grammar import GreedyGrammar
from acode.llm.kv_cache import CHUNK, AlignedCache, check_deadline, row_logprob
from acode.llm.prefix_store import PrefixStore
from acode.llm.scoring import TextScore
from acode.llm.structured import parse_envelope, tool_envelope_schema
from acode.llm.threads import default_threads
from acode.llm.types import (
    Completion,
    InstructionsAt,
    Message,
    TokenLogprob,
    ToolSpec,
    Usage,
    cut_at_stop,
)

log = logging.getLogger("acode.llm")

def _import_llama() -> Any:
    try:
        import llama_cpp
    except ImportError as exc:
        raise ModelNotInstalledError(
            "ACODE-MODEL-012",
            f"the embedded backend needs llama-cpp-python, which cannot be imported ({exc})",
            hint="pip install -e '.[local]' (or bash scripts/setup.sh), or use --backend openai with a "
                 "server",
        ) from None
    return llama_cpp


def _stopped(text: str, stop: Sequence[str], new: int) -> str | None:
    """``text`` cut before the first stop string, when the last ``new`` characters completed one."""
    start = max(0, len(text) - new - max(len(s) for s in stop))
    cut = cut_at_stop(text[start:], stop)
    return None if cut is None else text[:start] + cut


class EmbeddedModel:
    grammar_checks_argmax_first = True  # greedy decoding under a grammar: see acode.llm.greedy_grammar

    def __init__(self, path: Path, settings: ModelSettings):
        llama_cpp = _import_llama()
        self._llama_cpp = llama_cpp
        self.path = Path(path)
        self.name = settings.name if settings.path is None else self.path.stem
        threads = settings.threads or default_threads()
        log.debug("loading %s with %d threads", self.path, threads)
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(self.path),
                n_ctx=settings.context_window,
                n_batch=512,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=settings.gpu_layers,
                seed=settings.seed,
                logits_all=False,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ModelError(
                "ACODE-MODEL-011",
                f"llama.cpp could not load {self.path}: {exc}",
                hint="check that the file is a complete GGUF model; for a bundled model run "
                "`acode models pull --force`; a smaller model.context_window needs less memory",
            ) from None
        self.context_window = self._llm.n_ctx()
        self._lock = threading.Lock()
        self._grammars: dict[str, Any] = {}
        self._cache = AlignedCache(self._llm, self.name)
        self._store = None
        if settings.prompt_cache_mb > 0:
            from acode.paths import user_cache_dir

            folder = settings.prompt_cache_dir or user_cache_dir() / "prompt-cache"
            self._store = PrefixStore(folder, self.path, settings.prompt_cache_mb * 1024 * 1024, llama_cpp)
        self._template = ChatTemplate(
            self._llm.metadata.get("tokenizer.chat_template"),
            bos_token=self._token_text(self._llm.token_bos()),
            eos_token=self._token_text(self._llm.token_eos()),
        )

    # --- public ------------------------------------------------------------------------------------

    @property
    def metadata(self) -> dict[str, str]:
        return dict(self._llm.metadata)

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        seed: int = 0,
        timeout: float | None = None,
        on_text: Callable[[str], None] | None = None,
        logprobs: int | None = None,
        instructions_at: InstructionsAt = "system",
        stop: Sequence[str] | None = None,
    ) -> Completion:
        started = time.monotonic()
        deadline = started + timeout if timeout else None
        tokens = self._tokenize_prompt(self._template.prompt(messages, tools, schema, instructions_at))
        self._check_fits(len(tokens))
        constraint = schema if schema is not None else tool_envelope_schema(tools) if tools else None
        grammar = self._grammar(constraint) if constraint is not None else None
        stream = on_text if constraint is None else None
        fixed = self._system_part(messages, tools, schema, instructions_at, tokens)
        reused = 0

        def usage_now(generated: int) -> Usage:
            return Usage(
                prompt_tokens=len(tokens),
                prompt_tokens_evaluated=len(tokens) - reused,
                prompt_tokens_reused=reused,
                completion_tokens=generated,
                seconds=round(time.monotonic() - started, 4),
            )

        with self._lock:
            try:
                reused = start = self._cache.reuse_prefix(tokens)
                if fixed > reused:
                    reused, start = self._read_system_part(tokens[:fixed], reused, deadline, timeout)
                self._cache.evaluate(tokens[start:], start, deadline, timeout)
                text, generated, finish, token_logprobs = self._generate(
                    tokens,
                    max_new=min(max_tokens, self.context_window - len(tokens)),
                    temperature=temperature,
                    seed=seed,
                    grammar=grammar,
                    deadline=deadline,
                    timeout=timeout,
                    on_text=stream,
                    logprobs=logprobs,
                    stop=stop or (),
                )
            except ModelTimeoutError as exc:  # what the call had done, for the trajectory
                done = exc.partial or Completion(finish_reason="timeout")
                exc.partial = Completion(text=done.text, usage=usage_now(done.usage.completion_tokens),
                                         finish_reason="timeout", model=self.name)
                raise
        usage = usage_now(generated)
        log.debug("embedded call: %s", usage.model_dump())
        completion = Completion(
            text=text, usage=usage, finish_reason=finish, model=self.name, logprobs=token_logprobs
        )
        if tools:
            return self._with_tool_call(completion, tools)
        return completion

    def score_text(self, prefix: str, text: str, *, timeout: float | None = None) -> TextScore:
        """Log-probabilities of ``text``'s tokens after ``prefix`` (raw text, no chat template). The
        prefix is reused from the KV cache like a prompt; the scored tokens are evaluated with logits kept
        for every position."""
        started = time.monotonic()
        deadline = started + timeout if timeout else None
        head = self._llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=False)
        tokens = self._llm.tokenize((prefix + text).encode("utf-8"), add_bos=True, special=False)
        split = 0
        while split < min(len(head), len(tokens)) and head[split] == tokens[split]:
            split += 1
        split = max(split, 1)  # the first token has no logits before it
        self._check_fits(len(tokens))
        with self._lock:
            reused = self._cache.reuse_prefix(tokens[:split])  # keeps position split-1 to be evaluated again
            # Only the scored tokens need logits: the rest of the prefix is read as a prompt (in the same
            # aligned chunks, so the cache holds the same values), which costs about half as much.
            plain = max(reused, (split - 1) - (split - 1) % CHUNK)
            if plain > reused:
                self._cache.evaluate(tokens[reused:plain], reused, deadline, timeout)
            rows = self._cache.evaluate_with_logits(tokens[plain:], plain, deadline, timeout)
        logprobs = [row_logprob(rows[pos - 1 - plain], tokens[pos]) for pos in range(split, len(tokens))]
        usage = Usage(
            prompt_tokens=len(tokens),
            prompt_tokens_evaluated=len(tokens) - reused,
            prompt_tokens_reused=reused,
            seconds=round(time.monotonic() - started, 4),
        )
        return TextScore(tokens=[self._piece(t) for t in tokens[split:]], logprobs=logprobs, usage=usage)

    # --- prompt ------------------------------------------------------------------------------------

    def _token_text(self, token: int) -> str:
        if token < 0:
            return ""
        return self._llm.detokenize([token], special=True).decode("utf-8", errors="replace")

    def _tokenize_prompt(self, prompt: str) -> list[int]:
        bos = self._template.bos_token
        # A template that writes the BOS token itself must not get a second one from the tokenizer.
        add_bos = not (bos and prompt.startswith(bos))
        return self._llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)

    def _system_part(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None,
        schema: dict[str, Any] | None,
        instructions_at: InstructionsAt,
        tokens: list[int],
    ) -> int:
        """How many leading tokens of the prompt are its system message (with the instructions it holds),
        in whole aligned chunks: the part a later process can read from the prefix store. 0 when the
        store is off or the prompt has no system message before the others."""
        if self._store is None or len(messages) < 2 or messages[0].role != "system":
            return 0
        head = self._tokenize_prompt(self._template.prompt(messages[:1], tools, schema, instructions_at))
        common = 0
        for a, b in zip(head, tokens[: len(tokens) - 1]):
            if a != b:
                break
            common += 1
        return common - common % CHUNK

    def _read_system_part(self, head: list[int], reused: int, deadline: float | None,
                          timeout: float | None) -> tuple[int, int]:
        """The cache made to hold ``head``, whose first ``reused`` tokens it holds already: loaded from the
        prefix store, else evaluated and stored. (tokens reused, where evaluation goes on)."""
        assert self._store is not None
        if self._store.has(head):
            if self._store.load(self._llm, head):
                self._cache.whole_chunks = len(head)
                return len(head), len(head)
            self._cache.whole_chunks = reused = 0  # a failed load leaves the cache empty
        self._cache.evaluate(head[reused:], reused, deadline, timeout)
        self._store.save(self._llm, head)
        return reused, len(head)

    def _check_fits(self, needed: int) -> None:
        if needed >= self.context_window:
            raise ModelError(
                "ACODE-MODEL-020",
                f"the prompt needs {needed} tokens but the context window of {self.name} is "
                f"{self.context_window} tokens (one more is needed for the answer)",
                hint="raise model.context_window (e.g. ACODE_MODEL__CONTEXT_WINDOW=16384) or shorten the "
                     "input",
            )

    def _grammar(self, schema: dict[str, Any]) -> Any:
        key = json.dumps(schema)  # not sorted: property order in the schema is the order the model writes
        if key not in self._grammars:
            try:
                self._grammars[key] = self._llama_cpp.LlamaGrammar.from_json_schema(key, verbose=False)
            except (ValueError, RuntimeError, KeyError, TypeError) as exc:
                raise ModelError(
                    "ACODE-MODEL-021",
                    f"cannot build a decoding grammar from the JSON schema: {exc}",
                    hint="simplify the schema (llama.cpp supports objects, arrays, enums, anyOf, const)",
                ) from None
        return self._grammars[key]

    # --- decoding ------------------------------------------------------------------------------------

    def _generate(
        self,
        tokens: list[int],
        *,
        max_new: int,
        temperature: float,
        seed: int,
        grammar: Any,
        deadline: float | None,
        timeout: float | None,
        on_text: Callable[[str], None] | None,
        logprobs: int | None,
        stop: Sequence[str] = (),
    ) -> tuple[str, int, str, list[TokenLogprob] | None]:
        llm = self._llm
        vocab = llm._model.vocab
        llm.set_seed(seed)
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        pieces: list[str] = []
        count = 0
        finish = "length"
        collected: list[TokenLogprob] | None = [] if logprobs else None
        greedy = GreedyGrammar(self._llama_cpp, vocab, grammar, llm.n_vocab()) \
            if grammar is not None and temperature <= 0 and self.grammar_checks_argmax_first else None
        # The prompt is already in the KV cache, so generate() samples the first token straight away.
        stream = llm.generate(
            tokens,
            temp=max(temperature, 0.0),
            top_k=40,
            top_p=0.95,
            min_p=0.05,
            repeat_penalty=1.0,
            grammar=None if greedy else grammar,
            logits_processor=[greedy] if greedy else None,
        )
        try:
            while count < max_new:
                token = next(stream)
                if self._llama_cpp.llama_vocab_is_eog(vocab, token):
                    finish = "stop"
                    break
                if collected is not None:
                    collected.append(self._logprob(token, logprobs or 1))
                count += 1
                piece = decoder.decode(llm.detokenize([token]))
                if piece:
                    pieces.append(piece)
                    if on_text:
                        on_text(piece)
                    if stop and (cut := _stopped("".join(pieces), stop, len(piece))) is not None:
                        pieces, finish = [cut], "stop"
                        break
                check_deadline(self.name, deadline, timeout, "generating")
        except StopIteration:
            finish = "stop"
        except ModelTimeoutError as exc:
            exc.partial = Completion(text="".join(pieces), usage=Usage(completion_tokens=count))
            raise
        finally:
            stream.close()
            if greedy:
                greedy.close()
        tail = decoder.decode(b"", final=True)
        if tail:
            pieces.append(tail)
            if on_text:
                on_text(tail)
        return "".join(pieces), count, finish, collected

    def _logprob(self, token: int, top_n: int) -> TokenLogprob:
        """Log-probabilities from the logits the token was just sampled from (only the last row is kept,
        so this costs one pass over the vocabulary per generated token, not logits for the whole prompt)."""
        import numpy as np

        llm = self._llm
        logits = np.ctypeslib.as_array(llm._ctx.get_logits_ith(-1), shape=(llm.n_vocab(),)).astype(np.float64)
        peak = logits.max()
        log_norm = peak + np.log(np.exp(logits - peak).sum())
        n = min(top_n, logits.size)
        best = np.argpartition(-logits, n - 1)[:n]
        best = best[np.argsort(-logits[best])]
        top: dict[str, float] = {}
        for candidate in best.tolist():
            top.setdefault(self._piece(candidate), float(logits[candidate] - log_norm))
        return TokenLogprob(token=self._piece(token), logprob=float(logits[token] - log_norm), top=top)

    def _piece(self, token: int) -> str:
        return self._llm.detokenize([token]).decode("utf-8", errors="replace")

    def _with_tool_call(self, completion: Completion, tools: Sequence[ToolSpec]) -> Completion:
        try:
            value = json.loads(completion.text, strict=False)
            text, calls = parse_envelope(value, [t.name for t in tools])
        except ValueError as exc:
            if completion.finish_reason == "length":
                return completion  # cut off mid-envelope: the caller sees finish_reason "length"
            raise ModelOutputError(
                "ACODE-MODEL-024",
                f"the constrained answer is not a tool call or an answer: {exc}: {completion.text[:200]!r}",
            ) from None
        return completion.model_copy(
            update={"text": text, "tool_calls": calls, "finish_reason": "tool_calls" if calls else "stop"}
        )
