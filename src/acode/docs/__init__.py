"""Reference pages generated from the code so they cannot drift: ``python -m acode.docs --write`` writes
``docs/reference/``, ``--check`` fails naming what is missing or stale (a test and CI run it)."""
