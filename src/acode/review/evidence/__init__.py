"""Deterministic evidence about the change, gathered before any model judges it: ruff and its rule table,
the structural check of removed protections, added secrets, the project's history, the tests and the type
checker run on both sides, and the behavioural diff. Nothing here asks a model."""
