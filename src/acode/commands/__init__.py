"""Custom slash commands from TOML files: ``commands/agent/start.toml`` is ``/agent:start``."""
