"""Model layer: one ChatModel protocol, several backends (embedded llama.cpp, OpenAI-compatible HTTP,
scripted)."""

from acode.llm.protocol import ChatModel
from acode.llm.types import Completion, Message, TokenLogprob, ToolCall, ToolSpec, Usage

__all__ = ["ChatModel", "Completion", "Message", "TokenLogprob", "ToolCall", "ToolSpec", "Usage"]
