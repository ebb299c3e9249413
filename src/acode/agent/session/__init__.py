"""A running session: how it is built (``builder``), its verbs (``agent_session``), its system prompt and
context files, the recorder that stores it, and what the CLI adds (``@`` references, git turns)."""
