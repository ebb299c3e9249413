"""Translating between acode's normalised messages and the OpenAI chat-completions JSON: request bodies
out, choices, usage and logprobs back in. Pure functions, no HTTP."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from acode.llm.structured import extract_json
from acode.llm.types import Message, TokenLogprob, ToolCall, ToolSpec, Usage
from acode.prompts import render

log = logging.getLogger("acode.llm.openai")

JSON_SCHEMA_FORMAT = "json_schema"  # OpenAI, vLLM, Ollama, LM Studio
JSON_OBJECT_FORMAT = "json_object"  # llama-cpp-python's server: {"type": "json_object", "schema": ...}


def native_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages for a server that takes ``tools``: tool calls and tool results in OpenAI's own shape."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            out.append(
                {
                    "role": "assistant",
                    "content": message.content,  # "" rather than null: some servers reject null
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                        }
                        for call in message.tool_calls
                    ],
                }
            )
        elif message.role == "tool":
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
            )
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def envelope_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Messages for a server without native tools: earlier tool calls written as the JSON envelope the
    model is asked to produce, tool results as user turns."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant" and message.tool_calls:
            call = message.tool_calls[0]
            out.append({"role": "assistant", "content": call.envelope()})
        elif message.role == "tool":
            name = message.name or "tool"
            out.append(
                {
                    "role": "user",
                    "content": render("acode.llm", "tool_result.j2", name=name, content=message.content),
                }
            )
        else:
            out.append({"role": message.role, "content": message.content})
    return out


def add_system_note(sent: list[dict[str, Any]], note: str) -> list[dict[str, Any]]:
    """Append ``note`` (what constrained output means) to the system message, or start with one."""
    if not note:
        return sent
    if sent and sent[0]["role"] == "system":
        return [{"role": "system", "content": f"{sent[0]['content']}\n\n{note}"}, *sent[1:]]
    return [{"role": "system", "content": note}, *sent]


def tools_payload(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters},
        }
        for spec in tools
    ]


def response_format(schema: dict[str, Any], style: str) -> dict[str, Any]:
    if style == JSON_OBJECT_FORMAT:
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}


def native_tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    """``message.tool_calls`` (or the older ``function_call``) as ToolCalls; arguments arrive as a JSON
    string, sometimes already decoded, sometimes wrapped in prose."""
    raw = list(message.get("tool_calls") or [])
    if not raw and isinstance(message.get("function_call"), dict):
        raw = [{"function": message["function_call"]}]
    calls: list[ToolCall] = []
    for item in raw:
        function = item.get("function") or {}
        name = str(function.get("name") or "").strip()
        if not name:
            continue
        call = ToolCall(name=name, arguments=_arguments(function.get("arguments")))
        if item.get("id"):
            call.id = str(item["id"])
        calls.append(call)
    return calls


def _arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        try:
            value = extract_json(str(raw))
        except ValueError:
            log.warning("tool call arguments are not JSON: %.200s", raw)
            return {}
    return value if isinstance(value, dict) else {}


def usage_from(body: dict[str, Any], seconds: float) -> Usage | None:
    """Usage as the server reports it; cached prompt tokens from ``prompt_tokens_details.cached_tokens``
    (OpenAI, vLLM) or ``timings.cache_n`` (llama.cpp's llama-server). None when the server says nothing."""
    usage = body.get("usage")
    if not isinstance(usage, dict):
        return None
    prompt = int(usage.get("prompt_tokens") or 0)
    details = usage.get("prompt_tokens_details") or {}
    timings = body.get("timings") or {}
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    if cached is None and isinstance(timings, dict):
        cached = timings.get("cache_n")
    reused = min(int(cached or 0), prompt)
    return Usage(
        prompt_tokens=prompt,
        prompt_tokens_evaluated=prompt - reused,
        prompt_tokens_reused=reused,
        completion_tokens=int(usage.get("completion_tokens") or 0),
        seconds=seconds,
    )


def logprobs_from(choice: dict[str, Any]) -> list[TokenLogprob]:
    """Chat-style ``logprobs.content`` or the older completions shape (tokens / token_logprobs)."""
    data = choice.get("logprobs")
    if not isinstance(data, dict):
        return []
    if isinstance(data.get("content"), list):
        return [
            TokenLogprob(
                token=str(item.get("token", "")),
                logprob=float(item.get("logprob", 0.0)),
                top={
                    str(t.get("token", "")): float(t.get("logprob", 0.0))
                    for t in item.get("top_logprobs") or []
                },
            )
            for item in data["content"]
            if isinstance(item, dict)
        ]
    tokens = data.get("tokens") or []
    values = data.get("token_logprobs") or []
    tops = data.get("top_logprobs") or []
    out = []
    for index, (token, value) in enumerate(zip(tokens, values)):
        top = tops[index] if index < len(tops) and isinstance(tops[index], dict) else {}
        out.append(
            TokenLogprob(
                token=str(token), logprob=float(value or 0.0), top={k: float(v) for k, v in top.items()}
            )
        )
    return out
