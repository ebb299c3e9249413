"""A deterministic fake model that replays a script. Ships with the package so every loop, stage and
command can be tested end to end (select it with ``model.backend: scripted`` and ``model.script: FILE``).

A script step is one of:
- a ``Completion``;
- a string (plain-text answer);
- a dict: ``{"text": ...}``, ``{"tool": name, "arguments": {...}}``, ``{"json": {...}}`` (the text is
  that JSON), ``{"error": "message"}`` (the call raises ModelError), ``{"sleep": seconds, ...}``;
  a dict step may also name ``"started": FILE``, created when the step begins (a test waits for it
  instead of guessing when the call has started);
- an Exception instance (raised);
- a callable ``(messages, tools, schema) -> step`` for answers that depend on the prompt.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from acode.errors import ConfigError, ModelError
from acode.llm.scoring import TextScore
from acode.llm.types import Completion, InstructionsAt, Message, ToolCall, ToolSpec, Usage, cut_at_stop


class ScriptedModel:
    def __init__(self, steps: Sequence[Any] = (), *, name: str = "scripted", context_window: int = 8192,
                 scorer: Callable[[str, str], float] | None = None):
        self.name = name
        self._scorer = scorer
        self.context_window = context_window
        self._steps = list(steps)
        self._lock = threading.Lock()
        self.calls: list[dict[str, Any]] = []  # what each call was asked, for assertions
        self.scored: list[tuple[str, str]] = []  # (prefix, text) of each score_text call
        # (prompt, generated) tokens per second a caller may plan with: a scripted answer takes no time
        self.tokens_per_second: tuple[float, float] = (1e6, 1e6)

    @classmethod
    def from_file(cls, path: str | Path, **kwargs: Any) -> ScriptedModel:
        file = Path(path)
        try:
            steps = yaml.safe_load(file.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError("ACODE-CFG-020", f"cannot read the model script {file}: {exc}") from exc
        if not isinstance(steps, list):
            raise ConfigError("ACODE-CFG-021", f"the model script {file} must be a list of steps")
        return cls(steps, **kwargs)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    def push(self, *steps: Any) -> None:
        self._steps.extend(steps)

    def count_tokens(self, text: str) -> int:
        return max(1, len(text) // 4) if text else 0

    def score_text(self, prefix: str, text: str, *, timeout: float | None = None) -> TextScore:
        """Each line of ``text`` is one token; its log-probability is ``scorer(prefix, line)`` (0.0 without a
        scorer, so every version scores alike and no regression is seen)."""
        with self._lock:
            self.scored.append((prefix, text))
        lines = text.splitlines(keepends=True)
        logprobs = [float(self._scorer(prefix, line)) if self._scorer else 0.0 for line in lines]
        return TextScore(tokens=lines, logprobs=logprobs,
                         usage=Usage(prompt_tokens=self.count_tokens(prefix + text),
                                     prompt_tokens_evaluated=self.count_tokens(prefix + text)))

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
        with self._lock:
            self.calls.append({"messages": list(messages), "tools": list(tools or []), "schema": schema,
                               "instructions_at": instructions_at, "stop": list(stop or []),
                               "max_tokens": max_tokens, "temperature": temperature, "seed": seed})
            if not self._steps:
                raise ModelError("ACODE-MODEL-090", "the scripted model has no answers left")
            step = self._steps.pop(0)
        if callable(step) and not isinstance(step, (Completion, Exception)):
            step = step(list(messages), list(tools or []), schema)
        completion = self._to_completion(step, messages)
        cut = cut_at_stop(completion.text, stop) if not completion.tool_calls else None
        if cut is not None:  # as a backend would have stopped there
            completion = completion.model_copy(update={
                "text": cut, "finish_reason": "stop",
                "usage": completion.usage.model_copy(update={"completion_tokens": self.count_tokens(cut)})})
        if on_text and completion.text and not completion.tool_calls:
            on_text(completion.text)
        return completion

    def _to_completion(self, step: Any, messages: Sequence[Message]) -> Completion:
        if isinstance(step, Exception):
            raise step
        if isinstance(step, Completion):
            return step
        if isinstance(step, str):
            step = {"text": step}
        if not isinstance(step, dict):
            raise ModelError("ACODE-MODEL-091", f"unsupported scripted step: {step!r}")
        if "started" in step:
            Path(step["started"]).touch()
        if "sleep" in step:
            time.sleep(float(step["sleep"]))
        if "error" in step:
            raise ModelError("ACODE-MODEL-092", str(step["error"]))
        text = json.dumps(step["json"]) if "json" in step else str(step.get("text", ""))
        calls = [ToolCall(**c) for c in step.get("tool_calls", [])]
        if "tool" in step:
            calls.append(ToolCall(name=step["tool"], arguments=step.get("arguments", {})))
        prompt = sum(self.count_tokens(m.content) for m in messages)
        return Completion(
            text=text,
            tool_calls=calls,
            usage=Usage(
                prompt_tokens=prompt,
                prompt_tokens_evaluated=prompt,
                completion_tokens=self.count_tokens(text),
            ),
            finish_reason="tool_calls" if calls else "stop",
            model=self.name,
        )
