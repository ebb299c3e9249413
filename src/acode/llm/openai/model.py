"""The ``openai`` backend: any OpenAI-compatible chat-completions server (Ollama, vLLM, llama.cpp server,
LM Studio). This is how acode scales past one machine: point ``model.base_url`` at a vLLM cluster.

Tool calls follow ``model.native_tool_calling``:
- ``on``: send ``tools`` and read ``tool_calls`` (a call that comes back as JSON in the text is accepted);
- ``off``: explain the tools in the system prompt and constrain the answer with ``response_format`` to the
  JSON envelope of acode.llm.structured, parsing the text if the server ignores the constraint;
- ``auto``: probe once per (base_url, model) whether native tool calls come back, and remember it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from acode.config.model import ModelSettings
from acode.errors import ServerError
from acode.llm.chat_template import at_end, instructions_for
from acode.llm.openai import payload
from acode.llm.openai.client import ServerClient, ServerHTTPError
from acode.llm.server_caps import ServerCaps
from acode.llm.structured import parse_tool_text, tool_envelope_schema
from acode.llm.types import Completion, InstructionsAt, Message, TokenLogprob, ToolCall, ToolSpec, Usage
from acode.prompts import render

log = logging.getLogger("acode.llm.openai")

PROBE_TOOL = ToolSpec(
    name="report_status",
    description="Report a status word.",
    parameters={"type": "object", "properties": {"status": {"type": "string"}}, "required": ["status"]},
)
_TOKEN_CACHE_SIZE = 512
# sent when useful, left out for good once a server refuses them by name (llama-cpp-python's server started
# without logits_all refuses "logprobs"; the yes/no checks then read the answer's text)
OPTIONAL_FIELDS = ("stream_options", "seed", "top_logprobs", "logprobs")
_LEFT_OUT_WITH = {"logprobs": ("top_logprobs",)}  # top_logprobs means nothing without logprobs


class OpenAIModel:
    def __init__(self, settings: ModelSettings, *, caps_file: Any = None, client: ServerClient | None = None):
        from acode.netpolicy import check_url

        check_url(settings.base_url, settings.allowed_hosts)  # the local-only guarantee, before any request
        self.settings = settings
        self.name = settings.name
        self.context_window = settings.context_window
        self.client = client or ServerClient(
            settings.base_url,
            api_key_env=settings.api_key_env,
            timeout=settings.timeout_seconds,
            retries=settings.retries,
        )
        self.caps = ServerCaps(settings.base_url, settings.name, caps_file)
        self._token_counts: dict[str, int] = {}
        self._token_lock = threading.Lock()
        self._tokenizer_available = True

    # --- the ChatModel protocol ------------------------------------------------------------------------

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
        tools = list(tools or [])
        history_has_tools = any(m.role == "tool" or m.tool_calls for m in messages)
        native = self.native_tools() if (tools or history_has_tools) else False
        body: dict[str, Any] = {
            "model": self.name,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "seed": seed,
        }
        if stop:
            body["stop"] = list(stop)
        if native and tools and schema is None:
            body["messages"] = payload.native_messages(messages)
            body["tools"] = payload.tools_payload(tools)
            body["tool_choice"] = "auto"
            constraint = None  # native tools and a response_format do not mix on most servers
        else:
            # the same explanation of the constrained output as the embedded backend gives its model
            convert = payload.native_messages if native else payload.envelope_messages
            note = instructions_for(tools, schema)
            if instructions_at == "end":
                body["messages"] = convert(at_end(messages, note))
            else:
                body["messages"] = payload.add_system_note(convert(messages), note)
            constraint = schema if schema is not None else tool_envelope_schema(tools) if tools else None
        if logprobs:
            body["logprobs"] = True
            body["top_logprobs"] = logprobs
        stream = on_text is not None and not tools  # tool answers are parsed whole, then shown
        started = time.monotonic()
        message, finish, usage, tokens, model = self._send(body, constraint, stream, on_text, timeout)
        text = str(message.get("content") or "")
        calls: list[ToolCall] = []
        if tools:
            calls = payload.native_tool_calls(message) if native else []
            if not calls:
                text, calls = parse_tool_text(text, [spec.name for spec in tools])
            if len(calls) > 1:
                log.info("the model asked for %d tool calls at once; keeping the first", len(calls))
                calls = calls[:1]
            if calls:
                text = ""
            elif on_text and text:
                on_text(text)
        if usage is None:
            usage = self._estimated_usage(body["messages"], text, tokens)
        usage.seconds = time.monotonic() - started
        return Completion(
            text=text,
            tool_calls=calls,
            usage=usage,
            finish_reason="tool_calls" if calls else (finish or "stop"),
            model=model or self.name,
            logprobs=tokens if logprobs else None,
        )

    def count_tokens(self, text: str) -> int:
        """The server's own tokenizer where it has one (llama.cpp's /tokenize), else about 4 chars a token."""
        if not text:
            return 0
        with self._token_lock:
            if text in self._token_counts:
                return self._token_counts[text]
        count = self._server_token_count(text) if self._tokenizer_available else None
        if count is None:
            count = max(1, len(text) // 4)
        with self._token_lock:
            if len(self._token_counts) >= _TOKEN_CACHE_SIZE:
                self._token_counts.pop(next(iter(self._token_counts)))
            self._token_counts[text] = count
        return count

    # --- tool-calling mode -----------------------------------------------------------------------------

    def native_tools(self) -> bool:
        """Whether tools go to the server natively: by config, or probed once and remembered."""
        mode = self.settings.native_tool_calling
        if mode != "auto":
            return mode == "on"
        known = self.caps.get("native_tools")
        if known is not None:
            return bool(known)
        native = self._probe_native_tools()
        self.caps.set("native_tools", native)
        log.info(
            "server %s, model %s: native tool calls %s",
            self.client.base_url,
            self.name,
            "supported" if native else "not returned; using response_format",
        )
        return native

    def _probe_native_tools(self) -> bool:
        body = {
            "model": self.name,
            "messages": [{"role": "user", "content": render("acode.llm", "tool_probe.j2")}],
            "tools": payload.tools_payload([PROBE_TOOL]),
            "tool_choice": "auto",
            "max_tokens": 48,
            "temperature": 0.0,
            "seed": 0,
        }
        try:
            answer = self.client.post_json(
                "chat/completions", body, timeout=min(self.settings.timeout_seconds, 120)
            )
        except ServerHTTPError as exc:
            if exc.status in (400, 422) or exc.status == 500 and "tool" in exc.body.lower():
                return False  # the server rejects the `tools` field itself
            raise self._explain_http_error(exc) from None
        return bool(
            payload.native_tool_calls(_first_choice(answer, self.client.base_url).get("message") or {})
        )

    # --- sending ---------------------------------------------------------------------------------------

    def _send(
        self,
        body: dict[str, Any],
        constraint: dict[str, Any] | None,
        stream: bool,
        on_text: Callable[[str], None] | None,
        timeout: float | None,
    ) -> tuple[dict[str, Any], str | None, Usage | None, list[TokenLogprob], str]:
        """One request, adapted to what the server has rejected before: an optional field it refused by
        name is left out, and a refused OpenAI-style ``response_format`` is sent in the form
        llama-cpp-python's server takes. Each adaptation is remembered for this (base_url, model)."""
        style = self.caps.get("response_format") or payload.JSON_SCHEMA_FORMAT
        dropped = set(self.caps.get("unsupported_fields") or [])
        last_error: ServerHTTPError | None = None
        for _ in range(len(OPTIONAL_FIELDS) + 2):
            request = {**body, "stream": stream}
            if stream:
                request["stream_options"] = {"include_usage": True}
            if constraint is not None:
                request["response_format"] = payload.response_format(constraint, style)
            for name in dropped:
                request.pop(name, None)
            try:
                if stream:
                    return self._send_streaming(request, on_text, timeout)
                return self._send_plain(request, timeout)
            except ServerHTTPError as exc:
                last_error = exc
                said = str(request["messages"])  # an error that only echoes the prompt names nothing
                refused = [n for n in OPTIONAL_FIELDS if n in request and n in exc.body and n not in said]
                if refused:
                    dropped.update(refused, *(_LEFT_OUT_WITH.get(name, ()) for name in refused))
                    self.caps.set("unsupported_fields", sorted(dropped))
                elif (
                    "response_format" in request
                    and "response_format" in exc.body
                    and style != payload.JSON_OBJECT_FORMAT
                ):
                    style = payload.JSON_OBJECT_FORMAT
                    self.caps.set("response_format", style)
                else:
                    raise self._explain_http_error(exc) from None
                log.info(
                    "server %s refused part of a request (%s); adapting", self.client.base_url, exc.status
                )
        raise self._explain_http_error(last_error)

    def _send_plain(self, body: dict[str, Any], timeout: float | None):
        started = time.monotonic()
        answer = self.client.post_json("chat/completions", body, timeout=timeout)
        choice = _first_choice(answer, self.client.base_url)
        message = choice.get("message")
        if not isinstance(message, dict):
            raise _garbage(self.client.base_url, "a choice without a message")
        usage = payload.usage_from(answer, time.monotonic() - started)
        return (
            message,
            choice.get("finish_reason"),
            usage,
            payload.logprobs_from(choice),
            str(answer.get("model", "")),
        )

    def _send_streaming(
        self, body: dict[str, Any], on_text: Callable[[str], None] | None, timeout: float | None
    ):
        started = time.monotonic()
        pieces: list[str] = []
        tokens: list[TokenLogprob] = []
        finish: str | None = None
        usage: Usage | None = None
        model = ""
        chunks = 0
        for event in self.client.stream_events("chat/completions", body, timeout=timeout):
            model = str(event.get("model") or model)
            usage = payload.usage_from(event, time.monotonic() - started) or usage
            for choice in event.get("choices") or []:
                delta = choice.get("delta") or {}
                piece = delta.get("content")
                if piece:
                    chunks += 1
                    pieces.append(piece)
                    if on_text:
                        on_text(piece)
                tokens.extend(payload.logprobs_from(choice))
                finish = choice.get("finish_reason") or finish
        if usage is None and chunks:
            usage = Usage(completion_tokens=chunks)  # one streamed piece is one token on the common servers
        return {"content": "".join(pieces)}, finish, usage, tokens, model

    def _estimated_usage(
        self, sent: Iterable[dict[str, Any]], text: str, tokens: list[TokenLogprob]
    ) -> Usage:
        prompt = sum(max(1, len(str(m.get("content") or "")) // 4) for m in sent)
        return Usage(
            prompt_tokens=prompt,
            prompt_tokens_evaluated=prompt,
            completion_tokens=len(tokens) or max(1, len(text) // 4),
        )

    def _explain_http_error(self, exc: ServerHTTPError) -> ServerError:
        """A 404 most often means an unknown model name: list what the server does serve."""
        if exc.status != 404:
            return exc
        try:
            listing = self.client.request_once("GET", "models", timeout=5.0)
            served = [str(item.get("id")) for item in listing.get("data", []) if isinstance(item, dict)]
        except ServerError:
            return exc
        if not served or self.name in served:
            return exc
        return ServerHTTPError(
            "ACODE-MODEL-105",
            f"the model server at {self.client.base_url} has no model '{self.name}'; it serves: "
            + ", ".join(served[:20]),
            status=404,
            body=exc.body,
            hint="set model.name (or --model) to one of those names; with Ollama, `ollama pull` the model "
                 "first",
        )

    def _server_token_count(self, text: str) -> int | None:
        routes = [("tokenize", {"content": text}), ("extras/tokenize", {"input": text})]
        for route, request in routes:
            try:
                answer = self.client.request_once(
                    "POST", f"{self.client.root_url}/{route}", request, timeout=10.0
                )
            except ServerError:
                continue
            if isinstance(answer.get("tokens"), list):
                return len(answer["tokens"])
        self._tokenizer_available = False
        log.debug("no tokenizer endpoint at %s; estimating token counts", self.client.root_url)
        return None


def _first_choice(answer: dict[str, Any], base_url: str) -> dict[str, Any]:
    choices = answer.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise _garbage(base_url, "JSON without any choices")
    return choices[0]


def _garbage(base_url: str, what: str) -> ServerError:
    return ServerError(
        "ACODE-MODEL-103",
        f"the model server at {base_url} answered {what}, not a chat completion",
        hint="model.base_url must point at an OpenAI-compatible API (it usually ends in /v1)",
    )
