"""Approval: may a tool call run? The policy (approval modes, ``agent.rules``) and its shell half."""
