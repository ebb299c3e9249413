"""Structured answers: the tool-call envelope schema, parsing tool calls out of text, validated JSON.

Small local models become reliable tool users when decoding is constrained to a JSON envelope
``{"tool": <name>, "arguments": {...}}`` (one ``anyOf`` branch per tool) or ``{"answer": "<text>"}``.
Backends that cannot constrain decoding fall back to parsing the same envelope (or ``<tool_call>`` tags,
or fenced JSON) out of free text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from acode.errors import ModelOutputError
from acode.llm.protocol import ChatModel
from acode.llm.types import InstructionsAt, Message, ToolCall, ToolSpec, without_titles

T = TypeVar("T", bound=BaseModel)

ANSWER_KEY = "answer"


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with every local ``#/$defs/X`` reference replaced by its definition (no recursion).

    The tool envelope nests each tool's schema under ``arguments``, where a ``#/$defs`` reference of a
    nested pydantic model would no longer resolve (llama.cpp's grammar builder fails on it)."""
    defs = schema.get("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref.split("/")[-1] in defs:
                return resolve(defs[ref.split("/")[-1]])
            return {k: resolve(v) for k, v in node.items() if k != "$defs"}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node

    return resolve(schema)


def tool_envelope_schema(tools: Sequence[ToolSpec], *, allow_answer: bool = True) -> dict[str, Any]:
    """JSON schema for one decision: call exactly one tool, or answer in plain text."""
    branches: list[dict[str, Any]] = []
    for spec in tools:
        params = without_titles(inline_refs(dict(spec.parameters)))
        branches.append(
            {
                "type": "object",
                "properties": {"tool": {"const": spec.name}, "arguments": params},
                "required": ["tool", "arguments"],
            }
        )
    if allow_answer:
        branches.append(
            {"type": "object", "properties": {ANSWER_KEY: {"type": "string"}}, "required": [ANSWER_KEY]}
        )
    return {"anyOf": branches}


def tools_prompt(tools: Sequence[ToolSpec]) -> str:
    """How the envelope is explained to the model (prompts/tools.j2)."""
    from acode.prompts import render

    rows = [{"name": t.name, "description": t.description, "schema": json.dumps(t.parameters)} for t in tools]
    return render("acode.llm", "tools.j2", tools=rows)


_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)
_TAG = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


def extract_json(text: str) -> Any:
    """The first JSON value in ``text``: bare, inside a code fence or inside <tool_call> tags."""
    candidates = [m.group(1) for m in _TAG.finditer(text)] + [m.group(1) for m in _FENCE.finditer(text)]
    candidates.append(text)
    decoder = json.JSONDecoder(strict=False)  # small models put raw newlines inside JSON strings
    for candidate in candidates:
        candidate = candidate.strip()
        for start in [i for i, ch in enumerate(candidate) if ch in "{["][:20]:
            try:
                value, _ = decoder.raw_decode(candidate[start:])
                return value
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON object found in the model's answer")


def parse_envelope(value: Any, tool_names: Sequence[str]) -> tuple[str, list[ToolCall]]:
    """Turn an envelope (already decoded JSON) into (answer text, tool calls)."""
    if isinstance(value, dict) and isinstance(value.get("tool"), str):
        args = value.get("arguments", value.get("parameters", {}))
        return "", [ToolCall(name=value["tool"], arguments=args if isinstance(args, dict) else {})]
    if isinstance(value, dict) and isinstance(value.get("name"), str) and value["name"] in tool_names:
        args = value.get("arguments", {})
        if isinstance(args, str):
            args = json.loads(args)
        return "", [ToolCall(name=value["name"], arguments=args if isinstance(args, dict) else {})]
    if isinstance(value, dict) and ANSWER_KEY in value:
        return str(value[ANSWER_KEY]), []
    raise ValueError("JSON is neither a tool call nor an answer")


def parse_tool_text(text: str, tool_names: Sequence[str]) -> tuple[str, list[ToolCall]]:
    """Parse free text from an unconstrained model: a tool call if one is there, else the text itself."""
    try:
        return parse_envelope(extract_json(text), tool_names)
    except (ValueError, json.JSONDecodeError):
        return text, []


def complete_json(
    model: ChatModel,
    messages: Sequence[Message],
    output: type[T],
    *,
    max_tokens: int = 1024,
    timeout: float | None = None,
    seed: int = 0,
    instructions_at: InstructionsAt = "system",
) -> T:
    """Ask for JSON matching ``output``; validate; re-ask once with the error; then raise ModelOutputError.
    ``instructions_at``: where the backend explains the schema (see ChatModel.complete)."""
    schema = output.model_json_schema()
    history = list(messages)
    error = ""
    for attempt in range(2):
        completion = model.complete(
            history, schema=schema, max_tokens=max_tokens, temperature=0.0, seed=seed, timeout=timeout,
            instructions_at=instructions_at,
        )
        try:
            return output.model_validate(extract_json(completion.text))
        except (ValueError, ValidationError) as exc:
            error = str(exc)
            if attempt == 0:
                history += [
                    Message.assistant(completion.text),
                    Message.user(
                        f"That answer was not valid: {error[:800]}\nAnswer again with only JSON matching "
                        # "end": the backend explains the schema right after this message already
                        + ("the schema." if instructions_at == "end" else
                           f"this schema: {json.dumps(schema)}")
                    ),
                ]
    raise ModelOutputError(
        "ACODE-MODEL-010",
        f"the model's answer did not match the {output.__name__} schema after one retry: {error[:300]}",
        hint=_schema_hint(model, completion.finish_reason, max_tokens),
    )


def _schema_hint(model: ChatModel, finish_reason: str, max_tokens: int) -> str:
    """What to do about an answer that did not fit: a larger model only when the model is at fault."""
    if finish_reason == "length":
        return f"the answer was cut at its limit of {max_tokens} tokens before the JSON was complete"
    from acode.llm.scripted import ScriptedModel

    if isinstance(model, ScriptedModel):
        return "the scripted answer does not fit this question's schema: check the script"
    return "try a larger model (--model qwen2.5-coder-1.5b) or a backend with constrained decoding"
