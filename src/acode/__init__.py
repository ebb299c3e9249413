"""acode: a local-first agentic coding CLI. Every model call runs on the user's own machine."""

__version__ = "0.1.0"
