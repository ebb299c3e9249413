"""Extensions: a manifest that contributes a context file, a persona prompt, excluded tools, MCP servers
and custom commands. Found in ``.acode/extensions/`` and ``~/.config/acode/extensions/``."""
