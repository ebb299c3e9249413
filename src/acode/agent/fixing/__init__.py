"""Test-driven fixing: when a request asks for a code change and the project has a test command, the
harness runs the tests, asks the model for whole corrected files (or functions), applies each candidate
through the ordinary tools, and lets the tests choose. Measured in benchmarks/fix/fix_success.py: a small
local model writes a correct function far more often than it drives a multi-turn edit protocol."""

from acode.agent.fixing.fixer import TestDrivenFixer

__all__ = ["TestDrivenFixer"]
