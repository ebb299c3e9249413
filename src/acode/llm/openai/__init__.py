"""The OpenAI-compatible backend in three parts: ``client`` (HTTP transport), ``payload`` (translation of
messages and tools to the wire format and back) and ``model`` (the ChatModel adapter)."""
