"""Turn normalised messages into the prompt text a local model was trained on.

The embedded backend formats prompts itself (rather than letting llama.cpp do it) so it knows the exact
tokens of every call and can reuse the KV cache for the prefix shared with the previous call. The
template is the model's own (GGUF metadata ``tokenizer.chat_template``), rendered in a Jinja sandbox;
models without one get ChatML.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import Any

from acode.errors import ModelError
from acode.llm.structured import tools_prompt
from acode.llm.types import InstructionsAt, Message, ToolSpec


def _raise(message: str) -> None:
    raise ModelError("ACODE-MODEL-030", f"the model's chat template refused the messages: {message}")


class ChatTemplate:
    def __init__(self, source: str | None, *, bos_token: str = "", eos_token: str = ""):
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        self.is_fallback = not source
        if not source:
            source = (resources.files("acode.llm") / "prompts" / "chatml.j2").read_text(encoding="utf-8")
        env = ImmutableSandboxedEnvironment(
            trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"]
        )
        env.globals["raise_exception"] = _raise
        self._template = env.from_string(source)
        self.source = source
        self.bos_token = bos_token
        self.eos_token = eos_token
        # Templates that know a "tool" role (Qwen, Llama 3, ...) get tool results in their trained format.
        self.supports_tool_role = "'tool'" in source or '"tool"' in source

    def prompt(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec] | None = None,
        schema: dict[str, Any] | None = None,
        instructions_at: InstructionsAt = "system",
    ) -> str:
        """The prompt of one call: the messages with the explanation of its tools or schema."""
        instructions = instructions_for(tools, schema)
        if instructions_at == "end":
            return self.render(at_end(messages, instructions))
        return self.render(messages, extra_system=instructions)

    def render(self, messages: Sequence[Message], *, extra_system: str = "") -> str:
        rows = [self._row(m) for m in messages]
        if extra_system:
            if rows and rows[0]["role"] == "system":
                rows[0] = {**rows[0], "content": f"{rows[0]['content']}\n\n{extra_system}".strip()}
            else:
                rows.insert(0, {"role": "system", "content": extra_system})
        return self._template.render(
            messages=rows,
            add_generation_prompt=True,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
        )

    def _row(self, message: Message) -> dict[str, Any]:
        if message.role == "assistant" and message.tool_calls:
            calls = "\n".join(c.envelope() for c in message.tool_calls)  # as a constrained model emits them
            return {"role": "assistant", "content": f"{message.content}\n{calls}".strip()}
        if message.role == "tool":
            if self.supports_tool_role:
                return {"role": "tool", "content": message.content, "name": message.name or ""}
            return {"role": "user", "content": f"Result of the tool {message.name or ''}:\n{message.content}"}
        return {"role": message.role, "content": message.content}


def at_end(messages: Sequence[Message], note: str) -> list[Message]:
    """``note`` appended to the last message when it is the user's, else as a user message of its own."""
    out = list(messages)
    if not note:
        return out
    if out and out[-1].role == "user":
        out[-1] = out[-1].model_copy(update={"content": f"{out[-1].content}\n\n{note}"})
    else:
        out.append(Message.user(note))
    return out


def instructions_for(tools: Sequence[ToolSpec] | None, schema: dict[str, Any] | None) -> str:
    """What a prompt must add (to its system message, or at its end) so the model knows what its
    constrained output means."""
    from acode.prompts import render

    if tools:
        return tools_prompt(tools)
    if schema is not None:
        return render("acode.llm", "json_output.j2", schema=json.dumps(schema, ensure_ascii=False))
    return ""
