"""Sub-agents: their definitions (personas), the runner and ``invoke_agent`` tool, and the reviewer tool."""
