"""The sub-agent task queue: tasks kept as state files under ``.acode/agents/`` (no daemon)."""
