"""Branch review, in the stages a change goes through: ``change`` (what changed, from git), ``evidence``
(deterministic facts about it), ``judging`` (the model, within a time plan), ``deciding`` (findings to
levels to a decision) and ``reporting``. ``service`` is the entry point the CLI and the pipeline call; no
module imports a later stage (tests/unit/test_import_cycles.py)."""
